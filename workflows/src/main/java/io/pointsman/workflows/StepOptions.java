package io.pointsman.workflows;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/** Activity options of the steps; the one place their timeouts and retries are decided. */
final class StepOptions {
  private static final Duration HOLD_HEARTBEAT_CAP = Duration.ofSeconds(10);
  /** Below every first retry interval: a local read's retries all wait on a workflow timer. */
  private static final Duration LOCAL_RETRY_THRESHOLD = Duration.ofMillis(100);

  private StepOptions() {}

  /**
   * Every local step's options start here. A local activity's marker holds its result, which replay
   * reads, and by default its arguments too, which nothing reads: the same switcher (each table's
   * name) and lock set in every one of a switch's twenty-odd markers, recorded where the step that
   * produced them already recorded them. Left out, a switch's history and each task's answer to the
   * server are smaller; older histories with them still replay.
   */
  private static LocalActivityOptions.Builder localBuilder() {
    return LocalActivityOptions.newBuilder().setDoNotIncludeArgumentsIntoMarker(true);
  }

  private static RetryOptions stepRetry() {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofSeconds(1))
        .setBackoffCoefficient(2)
        .setMaximumInterval(Duration.ofSeconds(10))
        .setMaximumAttempts(5)
        .setDoNotRetry(Failures.nonRetryableTypes())
        .build();
  }

  /**
   * A topology or MySQL step. It heartbeats, so a lost lock or a cancelled workflow reaches it within
   * seconds, and the workflow waits for it to stop before compensating (no step runs concurrently
   * with its own compensation).
   */
  static ActivityOptions step(Duration startToClose) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(startToClose)
        .setHeartbeatTimeout(Duration.ofSeconds(10))
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(stepRetry())
        .build();
  }

  /**
   * A step before the write window bounded by the request's timeout (preparing the barrier): one
   * that ran out of it is not tried again, since each try's DDL holds up the table's writers.
   */
  static ActivityOptions stepWithinTimeout(Duration timeout) {
    return step(timeout.plus(Duration.ofMinutes(1))).toBuilder()
        .setRetryOptions(stepRetry().toBuilder().setDoNotRetry(Failures.nonRetryableWhileWritesStopped()).build())
        .build();
  }

  static ActivityOptions step() {
    return step(Duration.ofMinutes(2));
  }

  /**
   * A step of the write switch's critical section, run as a local activity: in the worker that runs
   * the workflow task, recorded as a marker, with no server round trip before the next step, which
   * is where Temporal would otherwise add most to the time writes are held. It cannot heartbeat, so
   * a cancellation or a lost lock is acted on when it ends; each of these steps checks its locks
   * and fences its changes itself, and a cancelled one is still waited for.
   */
  static LocalActivityOptions local(Duration startToClose) {
    return localBuilder()
        .setStartToCloseTimeout(startToClose)
        .setRetryOptions(stepRetry())
        .build();
  }

  /**
   * A local step bounded by the request's timeout before the journal (the drain, the catch-up; the
   * prepared barrier's waits, {@link #localPrepare}): running out of it rolls the switch back
   * instead of holding writes (or, preparing, the table's writers behind its DDL) for another
   * timeout per retry.
   */
  static LocalActivityOptions localWithinTimeout(Duration timeout) {
    return localBuilder()
        .setStartToCloseTimeout(timeout.plus(Duration.ofMinutes(1)))
        .setRetryOptions(stepRetry().toBuilder().setDoNotRetry(Failures.nonRetryableWhileWritesStopped()).build())
        .build();
  }

  /**
   * The prepared barrier (prepareSourceWrites) as a local activity: each of its statements waits at
   * most the request's timeout for transactions, inside the step, and all of them together may take
   * that and {@link SwitchActivities#PREPARE_WORK} more, this start-to-close, which the step reads
   * to end with its own failure first. A step that ran out of either is not tried again.
   */
  static LocalActivityOptions localPrepare(Duration timeout) {
    return localWithinTimeout(timeout).toBuilder()
        .setStartToCloseTimeout(timeout.plus(SwitchActivities.PREPARE_WORK))
        .build();
  }

  /**
   * A read outside the write window as a local activity (Versions.LOCAL_READS), each attempt with
   * the start-to-close of {@link #step()}. A local activity keeps its workflow task open, and a query
   * (the CLI's live progress) waits for that task: as long as the read runs (or until the task's
   * heartbeat), and every retry waits on a timer, where the task ends, rather than inside the task.
   */
  static LocalActivityOptions localRead() {
    return localLike(step());
  }

  /** The revoke at the end as a local activity (Versions.LOCAL_READS), retried as {@link #release()} is. */
  static LocalActivityOptions localRelease() {
    return localLike(release());
  }

  /** The activity's timeout and retries for a local one, whose retries past the first wait on a timer. */
  private static LocalActivityOptions localLike(ActivityOptions activity) {
    return localBuilder()
        .setStartToCloseTimeout(activity.getStartToCloseTimeout())
        .setRetryOptions(activity.getRetryOptions())
        .setLocalRetryThreshold(LOCAL_RETRY_THRESHOLD)
        .build();
  }

  /** Acquisition waits up to its own 45 s deadline inside the activity; no retry stacks another wait. */
  static ActivityOptions acquire() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(2))
        .setRetryOptions(RetryOptions.newBuilder()
            .setMaximumAttempts(2)
            .setDoNotRetry(ErrorCode.LOCK_TIMEOUT.name(), ErrorCode.NOT_FOUND.name(), ErrorCode.INVALID_ARGUMENT.name())
            .build())
        .build();
  }

  /**
   * The local try before acquireLocks (Versions.LOCAL_ACQUIRE): one attempt, bounded within the
   * activity to a fraction of a second; its retry is the waiting acquireLocks.
   */
  static LocalActivityOptions localTryAcquire() {
    return localBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(5))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build();
  }

  static ActivityOptions release() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
        .build();
  }

  /**
   * holdLocks: the heartbeat timeout is well under the lease TTL, so when its worker dies Temporal
   * retries it on another worker, which re-attaches to the leases before they expire. It is also
   * how fast holdLocks stops when the workflow releases or re-acquires: a cancellation reaches an
   * activity only in a heartbeat's response, and the SDK sends heartbeats at most every 0.8 heartbeat
   * timeouts, so the cap of 10 s bounds that wait to about 8 s (with 30 s every release took 24 s).
   */
  static ActivityOptions hold(Duration lockTtl, Duration maxLockHold) {
    Duration heartbeat = lockTtl.dividedBy(4);
    if (heartbeat.compareTo(Duration.ofSeconds(1)) < 0) {
      heartbeat = Duration.ofSeconds(1);
    }
    if (heartbeat.compareTo(HOLD_HEARTBEAT_CAP) > 0) {
      heartbeat = HOLD_HEARTBEAT_CAP;
    }
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(maxLockHold.plus(lockTtl))
        .setHeartbeatTimeout(heartbeat)
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setDoNotRetry(ErrorCode.LOCK_LOST.name())
            .build())
        .build();
  }
}
