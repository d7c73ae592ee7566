package io.pointsman.engine.primary.direct;

import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.PrimaryPositions;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.ReshardingJournals;
import io.pointsman.engine.mysql.SavedStreams;
import io.pointsman.engine.mysql.StreamWaiter;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.primary.PrimaryPorts;

/** Builds the direct-MySQL {@link PrimaryPorts} from the engine's MySQL classes. */
public final class DirectPorts {
  private DirectPorts() {}

  public static PrimaryPorts create(PrimaryResolver primaries, VReplicationStreams streams, SavedStreams saved,
      StreamWaiter waiter, PrimaryPositions positions, ReshardingJournals journals, JournalTimes times,
      WriteBarrier barrier, TableDrops tables, ConnectionPools pools) {
    DirectPort.Shared shared = new DirectPort.Shared(primaries, streams, saved, waiter, positions, journals, times,
        barrier, tables, pools);
    return new PrimaryPorts(new DirectStreams(shared), new DirectPositions(shared), new DirectJournals(shared),
        new DirectWriteGate(shared), new DirectTables(shared), new DirectSequences(shared),
        new DirectStreamReadiness(shared));
  }
}
