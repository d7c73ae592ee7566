package io.pointsman.engine.primary;

import java.util.Objects;

/** Everything a switch asks of a shard's primary, served by one world (direct MySQL or vttablets). */
public record PrimaryPorts(
    StreamsPort streams, PositionsPort positions, JournalsPort journals, WriteGatePort writeGate, TablesPort tables) {
  public PrimaryPorts {
    Objects.requireNonNull(streams, "streams");
    Objects.requireNonNull(positions, "positions");
    Objects.requireNonNull(journals, "journals");
    Objects.requireNonNull(writeGate, "writeGate");
    Objects.requireNonNull(tables, "tables");
  }
}
