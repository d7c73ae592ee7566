package io.pointsman.sandbox.router;

import java.util.concurrent.TimeUnit;

/**
 * Holds the current {@link RoutingSnapshot}: one writer publishes, many statements read it without
 * locking and block on it when they must wait for the topology to change.
 */
final class SnapshotBoard {
  private volatile RoutingSnapshot current;
  private boolean closed; // guarded by this

  SnapshotBoard(RoutingSnapshot initial) {
    this.current = initial;
  }

  RoutingSnapshot current() {
    return current;
  }

  synchronized void publish(RoutingSnapshot snapshot) {
    current = snapshot;
    notifyAll();
  }

  /**
   * Waits until a snapshot newer than {@code version} is published or the deadline (a
   * {@link System#nanoTime()} value) passes, and returns the current one either way; the caller
   * compares versions to tell which. Returns at once when the board is closed.
   */
  synchronized RoutingSnapshot awaitNewer(long version, long deadlineNanos) throws InterruptedException {
    while (!closed && current.version() <= version) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return current;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return current;
  }

  synchronized boolean closed() {
    return closed;
  }

  synchronized void close() {
    closed = true;
    notifyAll();
  }
}
