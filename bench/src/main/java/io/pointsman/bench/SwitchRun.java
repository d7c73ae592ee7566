package io.pointsman.bench;

import io.pointsman.api.model.Direction;
import java.time.Duration;
import java.util.List;

/**
 * One write switch as a benchmark saw it: when it started and ended on this JVM's monotonic clock,
 * and, where the executor can tell, its steps.
 *
 * @param executor {@code temporal} or {@code direct}
 * @param direction which way writes went (FORWARD: to the target)
 * @param startEpochMillis its start on the wall clock, to set it beside a Temporal history's times
 * @param workflowId the Temporal workflow that ran it; empty when executed directly
 */
record SwitchRun(String executor, Direction direction, long startNanos, long startEpochMillis, long endNanos,
    List<StepTiming> steps, String workflowId) {
  SwitchRun {
    steps = List.copyOf(steps);
  }

  Duration took() {
    return Duration.ofNanos(endNanos - startNanos);
  }
}
