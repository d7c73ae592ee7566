package io.pointsman.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;

/**
 * How the demo runs. Build it with {@link #builder()}; a direct construction is checked the same way.
 *
 * @param loadRate inserts per second the load sends through the router, from before the first switch
 *     to after Complete
 * @param settle how much load must be acknowledged after each action before the next starts: writes flow again
 */
record DemoOptions(double loadRate, int loadWriters, Duration settle, PrintStream out) {
  DemoOptions {
    if (!(loadRate > 0) || loadRate > 1000) {
      throw new IllegalArgumentException("the load rate must be more than 0 and at most 1000 writes/s, got "
          + loadRate);
    }
    if (loadWriters < 1 || loadWriters > 256) {
      throw new IllegalArgumentException("load writers must be 1..256, got " + loadWriters);
    }
    Objects.requireNonNull(settle, "settle");
    Objects.requireNonNull(out, "out");
  }

  static Builder builder() {
    return new Builder();
  }

  static final class Builder {
    private double loadRate = 50;
    private int loadWriters = 32;
    private Duration settle = Duration.ofSeconds(2);
    private PrintStream out = System.out;

    private Builder() {}

    Builder loadRate(double rate) {
      this.loadRate = rate;
      return this;
    }

    Builder loadWriters(int writers) {
      this.loadWriters = writers;
      return this;
    }

    Builder settle(Duration settle) {
      this.settle = Objects.requireNonNull(settle, "settle");
      return this;
    }

    Builder out(PrintStream out) {
      this.out = Objects.requireNonNull(out, "out");
      return this;
    }

    DemoOptions build() {
      return new DemoOptions(loadRate, loadWriters, settle, out);
    }
  }
}
