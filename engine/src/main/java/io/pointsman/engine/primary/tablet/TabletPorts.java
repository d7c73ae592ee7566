package io.pointsman.engine.primary.tablet;

import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.JournalsPort;
import io.pointsman.engine.primary.PositionsPort;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.SequencesPort;
import io.pointsman.engine.primary.StreamReadinessPort;
import io.pointsman.engine.primary.StreamsPort;
import io.pointsman.engine.primary.TablesPort;
import io.pointsman.engine.primary.WriteGatePort;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.topo.TopologyStore;
import java.time.Clock;
import java.util.Optional;

/** The shard-primary ports served by vttablets, sharing one client, resolver and fence. */
public record TabletPorts(
    TabletPrimaries primaries,
    FencePort fence,
    StreamsPort streams,
    PositionsPort positions,
    JournalsPort journals,
    WriteGatePort writeGate,
    TablesPort tables,
    SequencesPort sequences,
    StreamReadinessPort readiness) {

  /**
   * @param locks asked before each fence raise whether the locks are still held; empty to rely on
   *     the fence tokens alone
   */
  public static TabletPorts create(TopologyStore topo, TabletManagerClient client, Optional<LockService> locks) {
    TabletPrimaries primaries = new TabletPrimaries(topo);
    TabletFence fence = new TabletFence(client, primaries, locks);
    TabletPort.Shared shared = new TabletPort.Shared(topo, client, primaries, fence, Clock.systemUTC());
    return new TabletPorts(primaries, fence, new TabletStreams(shared), new TabletPositions(shared),
        new TabletJournals(shared), new TabletWriteGate(shared), new TabletTables(shared),
        new TabletSequences(shared), new TabletStreamReadiness(shared));
  }

  /** The ports a switch uses, as one {@link PrimaryPorts}. */
  public PrimaryPorts ports() {
    return new PrimaryPorts(streams, positions, journals, writeGate, tables, sequences, readiness);
  }
}
