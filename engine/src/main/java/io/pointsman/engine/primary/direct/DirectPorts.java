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
    return new PrimaryPorts(new DirectStreams(primaries, streams, saved), new DirectPositions(primaries, positions, waiter),
        new DirectJournals(primaries, journals, times), new DirectWriteGate(primaries, barrier),
        new DirectTables(primaries, tables, barrier), new DirectSequences(primaries, pools),
        new DirectStreamReadiness(primaries));
  }
}
