package io.pointsman.engine.primary.direct;

import io.pointsman.api.gtid.Position;
import io.pointsman.engine.concurrent.PollSchedule;
import io.pointsman.engine.primary.PositionsPort;
import io.pointsman.engine.primary.ShardRef;
import java.time.Duration;

/** {@link PositionsPort} by reading the primary's GTID position and polling its stream rows. */
final class DirectPositions extends DirectPort implements PositionsPort {
  /** How often a wait reads the stream's row: from 1 ms up to 10, as the wait is inside the write window. */
  private static final PollSchedule POLLS = PollSchedule.upTo(Duration.ofMillis(10));

  DirectPositions(Shared shared) {
    super(shared);
  }

  @Override
  public Position current(ShardRef shard) {
    return positions.current(at(shard));
  }

  @Override
  public Position waitFor(ShardRef shard, int streamId, Position wanted, Duration timeout) {
    return waiter.waitForPosition(at(shard), streamId, wanted, timeout, POLLS);
  }
}
