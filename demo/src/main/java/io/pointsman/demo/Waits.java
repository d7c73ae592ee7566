package io.pointsman.demo;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes: the demo waits on what it can observe. */
final class Waits {
  private Waits() {}

  /**
   * @throws IllegalStateException naming what did not happen within {@code timeout}
   */
  static void until(String what, Duration timeout, Duration poll, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " did not happen within " + timeout.toSeconds() + "s");
      }
      try {
        Thread.sleep(poll.toMillis()); // the interval between two looks at the condition
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting until " + what, e);
      }
    }
  }
}
