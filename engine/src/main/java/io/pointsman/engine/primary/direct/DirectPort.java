package io.pointsman.engine.primary.direct;

import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.JournalTimes;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.PrimaryPositions;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.ReshardingJournals;
import io.pointsman.engine.mysql.SavedStreams;
import io.pointsman.engine.mysql.StreamWaiter;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.primary.ShardRef;
import java.util.Objects;

/**
 * A port served by the primary's MySQL directly. {@link DirectPorts} hands every port the same
 * engine MySQL classes, as {@link Shared}; each port resolves a shard to its primary with {@link #at}.
 */
abstract class DirectPort {
  /** The engine's MySQL classes the direct ports work with, built once over one set of pools. */
  record Shared(PrimaryResolver primaries, VReplicationStreams streams, SavedStreams saved, StreamWaiter waiter,
      PrimaryPositions positions, ReshardingJournals journals, JournalTimes times, WriteBarrier barrier,
      TableDrops drops, ConnectionPools pools) {}

  protected final PrimaryResolver primaries;
  protected final VReplicationStreams streams;
  protected final SavedStreams saved;
  protected final StreamWaiter waiter;
  protected final PrimaryPositions positions;
  protected final ReshardingJournals journals;
  protected final JournalTimes times;
  protected final WriteBarrier barrier;
  protected final TableDrops drops;
  protected final ConnectionPools pools;

  DirectPort(Shared shared) {
    this.primaries = Objects.requireNonNull(shared.primaries(), "primaries");
    this.streams = Objects.requireNonNull(shared.streams(), "streams");
    this.saved = Objects.requireNonNull(shared.saved(), "saved");
    this.waiter = Objects.requireNonNull(shared.waiter(), "waiter");
    this.positions = Objects.requireNonNull(shared.positions(), "positions");
    this.journals = Objects.requireNonNull(shared.journals(), "journals");
    this.times = Objects.requireNonNull(shared.times(), "times");
    this.barrier = Objects.requireNonNull(shared.barrier(), "barrier");
    this.drops = Objects.requireNonNull(shared.drops(), "drops");
    this.pools = Objects.requireNonNull(shared.pools(), "pools");
  }

  /**
   * The shard's primary as the topology names it now; refused when it is not the one the ref
   * expects, from the same read of the Shard record ({@link ShardRef#checkPrimary}).
   */
  protected final PrimaryEndpoint at(ShardRef shard) {
    PrimaryResolver.Current now = primaries.resolveWithTerm(shard.keyspace(), shard.shard(), shard.expectedPrimary());
    shard.checkPrimary(now.term());
    return now.endpoint();
  }
}
