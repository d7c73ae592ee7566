package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.concurrent.PollSchedule;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.primary.PositionsPort;
import io.pointsman.engine.primary.ShardRef;
import java.time.Duration;
import java.util.Objects;

/**
 * {@link PositionsPort} on vttablets: PrimaryPosition, and a wait that reads the stream's row until
 * it reaches the position, failing as {@link io.pointsman.engine.mysql.StreamWaiter} does for a
 * missing or stopped stream and at the caller's deadline.
 */
public final class TabletPositions extends TabletPort implements PositionsPort {
  /** How often a wait reads the stream's row: from 1 ms up to 25, each read being a tablet call. */
  private static final PollSchedule POLLS = PollSchedule.upTo(Duration.ofMillis(25));

  TabletPositions(Shared shared) {
    super(shared);
  }

  @Override
  public Position current(ShardRef shard) {
    return Position.parse(client.primaryPosition(primaries.resolve(shard).endpoint()));
  }

  /**
   * Polls the stream's row (VReplicationExec) until its position has {@code wanted}. vtctld calls
   * VReplicationWaitForPos instead, whose tablet-side loop reads the row once a second: inside the
   * write window that second is most of the wait.
   */
  @Override
  public Position waitFor(ShardRef shard, int streamId, Position wanted, Duration timeout) {
    Objects.requireNonNull(wanted, "wanted");
    if (wanted.isZero()) {
      throw PointsmanException.invalidArgument("no position to wait for on stream " + streamId + " of " + shard);
    }
    TabletPrimary p = primaries.resolve(shard);
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int reads = 1; ; reads++) {
      StreamRows.Row row = StreamRows.byId(client, p, streamId).orElseThrow(() -> PointsmanException.notFound(
          "stream " + streamId + " does not exist on " + p));
      // the position first: a stream that stops by itself at its stop position has arrived
      if (row.pos().atLeast(wanted)) {
        return row.pos();
      }
      if (row.state() == StreamState.STOPPED || row.state() == StreamState.ERROR) {
        throw PointsmanException.failedPrecondition("stream " + streamId + " of workflow " + row.workflow() + " on " + p
            + " is " + row.state().column() + " at " + row.pos() + " before reaching " + wanted
            + (row.message().isEmpty() ? "" : "; message: " + row.message()));
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "stream " + streamId + " of workflow "
            + row.workflow() + " on " + p + " did not reach " + wanted + " within " + timeout + "; it is "
            + row.state().column() + " at " + row.pos()
            + (row.message().isEmpty() ? "" : " (message: " + row.message() + ")"));
      }
      try {
        POLLS.sleepAfter(reads, deadline);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw PointsmanException.unavailable("interrupted while waiting for stream " + streamId + " on " + p, e);
      }
    }
  }
}
