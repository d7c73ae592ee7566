package io.pointsman.sandbox.load;

import java.time.Duration;

/**
 * One numbered write of a load run. Times are {@link System#nanoTime()} values of this JVM.
 *
 * @param seq the write's number in the run, from 0
 * @param key the sharding key it wrote (for the customer load, its {@code customer_id})
 * @param dueNanos when the schedule wanted it sent
 * @param sentNanos when it was handed to the router (later than due when every writer was busy)
 * @param ackNanos when the router returned, with success or failure
 * @param outcome whether the router acknowledged it
 * @param message the error for a failed write, empty otherwise
 */
public record LoadRecord(
    long seq, long key, long dueNanos, long sentNanos, long ackNanos, Outcome outcome, String message) {

  /** What the router answered. */
  public enum Outcome {
    /** Acknowledged: the write must be found where the topology serves it. */
    OK,
    /** Failed: not acknowledged, whatever happened to it. */
    ERROR
  }

  public boolean acknowledged() {
    return outcome == Outcome.OK;
  }

  /** From handing it to the router to its answer, buffering included. */
  public Duration latency() {
    return Duration.ofNanos(ackNanos - sentNanos);
  }
}
