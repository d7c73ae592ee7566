package io.pointsman.bench;

import java.time.Duration;

/**
 * One step of a switch as it ran.
 *
 * @param name the Vitess step name
 * @param startNanos when it started ({@link System#nanoTime()} of this JVM)
 * @param endNanos when it ended
 */
record StepTiming(String name, long startNanos, long endNanos) {
  Duration took() {
    return Duration.ofNanos(endNanos - startNanos);
  }
}
