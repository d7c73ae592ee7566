package io.pointsman.sandbox.streams;

import java.time.Duration;
import org.slf4j.Logger;

/** Waiting for a stream's own thread to end when it is closed, unless it is that thread closing itself. */
final class ThreadJoin {
  private ThreadJoin() {}

  /** Joins {@code thread} for at most {@code wait}; logs {@code what} when it is still alive then. */
  static void awaitEnd(Thread thread, Duration wait, Logger log, String what) {
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("{} did not stop within {}", what, wait);
    }
  }
}
