package io.pointsman.activities;

import io.temporal.activity.ActivityInfo;
import java.time.Instant;

/**
 * The Temporal server's time as an activity attempt can tell it: when the server scheduled the
 * attempt, plus what this worker's monotonic clock measured since the attempt began. Every worker
 * of a workflow shares that clock, unlike their wall clocks, which may be minutes apart or jump
 * (scenario S7); a lock's max hold must mean the same to the worker that took the lock and to the
 * one that takes it over after a crash.
 *
 * <p>It runs behind the server by the time the attempt waited in the task queue, usually
 * milliseconds: a lock stamped with it looks a little older than it is (its hold ends early), and an
 * attach measuring with it a little younger (the hold ends that much late).
 */
final class ServerClock {
  private final long scheduledMillis;
  private final long startedNanos;

  private ServerClock(long scheduledMillis, long startedNanos) {
    this.scheduledMillis = scheduledMillis;
    this.startedNanos = startedNanos;
  }

  /** Starts measuring for the attempt {@code info} describes; call it as the attempt starts. */
  static ServerClock of(ActivityInfo info) {
    return new ServerClock(info.getCurrentAttemptScheduledTimestamp(), System.nanoTime());
  }

  /**
   * Starts measuring from {@code serverMillis}, a time the server gave that has just passed: for a
   * local activity, the workflow time of the task that runs it (its info carries this worker's wall
   * clock instead). Behind by the time the task has run so far, in the same safe direction as above.
   */
  static ServerClock at(long serverMillis) {
    return new ServerClock(serverMillis, System.nanoTime());
  }

  Instant now() {
    return Instant.ofEpochMilli(scheduledMillis).plusNanos(System.nanoTime() - startedNanos);
  }
}
