package io.pointsman.sandbox.streams;

import java.time.Duration;

/** Exponential backoff between retries, doubling from an initial delay up to a cap. Not thread-safe. */
final class Backoff {
  private final Duration initial;
  private final Duration max;
  private Duration next;

  Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
    this.next = initial;
  }

  Duration next() {
    Duration d = next;
    next = next.multipliedBy(2).compareTo(max) > 0 ? max : next.multipliedBy(2);
    return d;
  }

  void reset() {
    next = initial;
  }
}
