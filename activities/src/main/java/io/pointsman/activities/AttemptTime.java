package io.pointsman.activities;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Duration;
import java.util.Optional;

/**
 * The activity on this thread: whether there is one, and how long its attempt may still work.
 * A step that bounds its own work by its start-to-close ends with its own failure, which says what
 * ran out, instead of Temporal's timeout, which says nothing and, for a local activity, leaves the
 * attempt running beside its retry.
 */
final class AttemptTime {
  /** Kept from the start-to-close for the step's answer after its last statement; a tenth of short ones. */
  static final Duration MARGIN = Duration.ofSeconds(15);

  private AttemptTime() {}

  /** The activity running on this thread; empty outside one (the bench's direct switch, tests). */
  static Optional<ActivityExecutionContext> context() {
    try {
      return Optional.of(Activity.getExecutionContext());
    } catch (IllegalStateException | NullPointerException notInAnActivity) {
      return Optional.empty();
    }
  }

  /**
   * How long the attempt that has just started may work: its start-to-close less the margin (a
   * tenth of it when that is shorter); {@code outsideTemporal} where there is no activity or it
   * has no start-to-close.
   */
  static Duration left(Duration outsideTemporal) {
    Duration startToClose = context().map(c -> c.getInfo().getStartToCloseTimeout()).orElse(null);
    if (startToClose == null || startToClose.isZero() || startToClose.isNegative()) {
      return outsideTemporal;
    }
    Duration tenth = startToClose.dividedBy(10);
    return startToClose.minus(tenth.compareTo(MARGIN) < 0 ? tenth : MARGIN);
  }
}
