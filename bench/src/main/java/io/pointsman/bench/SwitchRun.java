package io.pointsman.bench;

import java.time.Duration;
import java.util.List;

/**
 * One write switch as a benchmark saw it: when it started and ended on this JVM's monotonic clock,
 * and, where the executor can tell, its steps.
 *
 * @param executor {@code temporal} or {@code direct}
 * @param direction which way writes went ({@code forward}: to the target)
 * @param workflowId the Temporal workflow that ran it; empty when executed directly
 */
record SwitchRun(String executor, String direction, long startNanos, long endNanos, List<StepTiming> steps,
    String workflowId) {
  SwitchRun {
    steps = List.copyOf(steps);
  }

  Duration took() {
    return Duration.ofNanos(endNanos - startNanos);
  }
}
