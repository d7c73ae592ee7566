package io.pointsman.engine.primary;

import java.util.Objects;

/** Everything a switch asks of a shard's primary, served by one world (direct MySQL or vttablets). */
public record PrimaryPorts(StreamsPort streams, PositionsPort positions, JournalsPort journals,
    WriteGatePort writeGate, TablesPort tables, SequencesPort sequences, StreamReadinessPort readiness) {
  public PrimaryPorts {
    Objects.requireNonNull(streams, "streams");
    Objects.requireNonNull(positions, "positions");
    Objects.requireNonNull(journals, "journals");
    Objects.requireNonNull(writeGate, "writeGate");
    Objects.requireNonNull(tables, "tables");
    Objects.requireNonNull(sequences, "sequences");
    Objects.requireNonNull(readiness, "readiness");
  }

  /** The same ports with another write gate. */
  public PrimaryPorts withWriteGate(WriteGatePort gate) {
    return new PrimaryPorts(streams, positions, journals, gate, tables, sequences, readiness);
  }
}
