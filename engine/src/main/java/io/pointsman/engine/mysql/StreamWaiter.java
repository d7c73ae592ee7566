package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.concurrent.PollSchedule;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for a stream to reach a position, as Vitess's {@code VReplicationWaitForPos}: reads the
 * stream's {@code pos} on a {@link PollSchedule}, returns as soon as it has reached the wanted
 * position, fails early when the stream is Stopped or in Error (it would never get there), and
 * fails with DEADLINE_EXCEEDED naming the stream, the wanted and the reached positions when time
 * runs out.
 */
public final class StreamWaiter {
  private static final Logger log = LoggerFactory.getLogger(StreamWaiter.class);

  private final VReplicationStreams streams;

  public StreamWaiter(VReplicationStreams streams) {
    this.streams = Objects.requireNonNull(streams, "streams");
  }

  /**
   * Waits until stream {@code streamId} on the endpoint has applied {@code wanted}.
   *
   * @param timeout how long to wait at most (measured on the monotonic clock)
   * @param polls the pauses between two reads of the stream
   * @return the position the stream had reached
   * @throws PointsmanException NOT_FOUND if the stream does not exist; FAILED_PRECONDITION when it
   *     stopped or failed first, with its message; DEADLINE_EXCEEDED at the timeout;
   *     INVALID_ARGUMENT when the stream's position and {@code wanted} are of different flavors
   */
  public Position waitForPosition(PrimaryEndpoint endpoint, int streamId, Position wanted, Duration timeout,
      PollSchedule polls) {
    Objects.requireNonNull(wanted, "wanted");
    Objects.requireNonNull(polls, "polls");
    if (timeout.isNegative()) {
      throw PointsmanException.invalidArgument("wait timeout must not be negative, got " + timeout);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int reads = 1; ; reads++) {
      Stream s = streams.read(endpoint, streamId).orElseThrow(() -> PointsmanException.notFound(
          "stream " + streamId + " does not exist on " + endpoint));
      // The position first: a stream that stops by itself at its stop position has arrived.
      if (s.pos().atLeast(wanted)) {
        log.info("stream {} of {} on {} reached {}", streamId, s.workflow(), endpoint, wanted);
        return s.pos();
      }
      if (s.state() == StreamState.STOPPED || s.state() == StreamState.ERROR) {
        throw PointsmanException.failedPrecondition("stream " + streamId + " of workflow " + s.workflow() + " on "
            + endpoint + " is " + s.state().column() + " at " + s.pos() + " before reaching " + wanted
            + (s.message().isEmpty() ? "" : "; message: " + s.message()));
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "stream " + streamId + " of workflow "
            + s.workflow() + " on " + endpoint + " did not reach " + wanted + " within " + timeout
            + "; it is " + s.state().column() + " at " + s.pos()
            + (s.message().isEmpty() ? "" : " (message: " + s.message() + ")"));
      }
      sleep(polls, reads, deadline, streamId);
    }
  }

  private static void sleep(PollSchedule polls, int reads, long deadline, int streamId) {
    try {
      polls.sleepAfter(reads, deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while waiting for stream " + streamId, e);
    }
  }
}
