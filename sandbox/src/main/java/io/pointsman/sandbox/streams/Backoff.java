package io.pointsman.sandbox.streams;

import io.pointsman.engine.concurrent.PollSchedule;
import java.time.Duration;

/**
 * Exponential backoff between retries, doubling from an initial delay up to a cap (the pauses of a
 * {@link PollSchedule}), counted from the last reset. Not thread-safe.
 */
final class Backoff {
  private final PollSchedule delays;
  private int retries;

  Backoff(Duration initial, Duration max) {
    this.delays = new PollSchedule(initial, max);
  }

  Duration next() {
    return delays.pause(++retries);
  }

  void reset() {
    retries = 0;
  }
}
