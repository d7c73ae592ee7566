package io.pointsman.activities;

import io.pointsman.api.lock.LockSet;
import io.temporal.activity.Activity;

/**
 * The fence epoch of one attempt of a step (docs/locks.md §8). The workflow stamps each step's
 * LockSet with an epoch whose low ten bits are free; the attempt number goes there, so a retry
 * that replaced an attempt paused past its timeout fences the paused one out under the same locks.
 */
final class StepEpochs {
  private static final int MAX_ATTEMPT = 1023;

  private StepEpochs() {}

  static LockSet thisAttempt(LockSet locks) {
    if (locks == null || locks.epoch() == 0) {
      return locks; // not stamped: a run from before epochs, or a tool's own locks
    }
    int attempt;
    try {
      attempt = Activity.getExecutionContext().getInfo().getAttempt();
    } catch (IllegalStateException | NullPointerException notInAnActivity) {
      attempt = 1;
    }
    return locks.withEpoch(locks.epoch() + Math.min(Math.max(attempt, 1), MAX_ATTEMPT));
  }
}
