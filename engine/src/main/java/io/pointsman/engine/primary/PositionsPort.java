package io.pointsman.engine.primary;

import io.pointsman.api.gtid.Position;
import java.time.Duration;

/**
 * Binlog positions of a shard's primary and of the streams on it. Direct MySQL:
 * {@link io.pointsman.engine.mysql.PrimaryPositions} and {@link io.pointsman.engine.mysql.StreamWaiter}.
 */
public interface PositionsPort {

  /** The primary's current position. */
  Position current(ShardRef shard);

  /**
   * Waits until stream {@code streamId} on the shard's primary has applied {@code wanted}.
   *
   * @return the position the stream had reached
   * @throws io.pointsman.api.errors.PointsmanException NOT_FOUND when the stream does not exist;
   *     FAILED_PRECONDITION when it is stopped short of the position; DEADLINE_EXCEEDED at the timeout
   */
  Position waitFor(ShardRef shard, int streamId, Position wanted, Duration timeout);
}
