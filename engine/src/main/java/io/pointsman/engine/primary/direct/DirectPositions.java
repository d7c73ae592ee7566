package io.pointsman.engine.primary.direct;

import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.PrimaryPositions;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.StreamWaiter;
import io.pointsman.engine.primary.PositionsPort;
import io.pointsman.engine.primary.ShardRef;
import java.time.Duration;
import java.util.Objects;

/** {@link PositionsPort} by reading the primary's GTID position and polling its stream rows. */
final class DirectPositions implements PositionsPort {
  /** How often a wait reads the stream's row: short, as the wait is inside the write window. */
  private static final Duration POLL = Duration.ofMillis(10);

  private final PrimaryResolver primaries;
  private final PrimaryPositions positions;
  private final StreamWaiter waiter;

  DirectPositions(PrimaryResolver primaries, PrimaryPositions positions, StreamWaiter waiter) {
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.positions = Objects.requireNonNull(positions, "positions");
    this.waiter = Objects.requireNonNull(waiter, "waiter");
  }

  @Override
  public Position current(ShardRef shard) {
    return positions.current(primaries.resolve(shard.keyspace(), shard.shard()));
  }

  @Override
  public Position waitFor(ShardRef shard, int streamId, Position wanted, Duration timeout) {
    return waiter.waitForPosition(primaries.resolve(shard.keyspace(), shard.shard()), streamId, wanted, timeout, POLL);
  }
}
