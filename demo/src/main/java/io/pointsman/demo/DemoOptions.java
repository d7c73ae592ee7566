package io.pointsman.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;

/** How the demo runs. Immutable; build it with {@link #builder()}. */
final class DemoOptions {
  private final double loadRate;
  private final int loadWriters;
  private final Duration settle;
  private final PrintStream out;

  private DemoOptions(Builder b) {
    this.loadRate = b.loadRate;
    this.loadWriters = b.loadWriters;
    this.settle = b.settle;
    this.out = b.out;
  }

  static Builder builder() {
    return new Builder();
  }

  /** Inserts per second the load sends through the router, from before the first switch to after Complete. */
  double loadRate() {
    return loadRate;
  }

  int loadWriters() {
    return loadWriters;
  }

  /** How much load must be acknowledged after each action before the next starts: writes flow again. */
  Duration settle() {
    return settle;
  }

  PrintStream out() {
    return out;
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
      if (!(loadRate > 0) || loadRate > 1000) {
        throw new IllegalArgumentException("the load rate must be more than 0 and at most 1000 writes/s, got "
            + loadRate);
      }
      if (loadWriters < 1 || loadWriters > 256) {
        throw new IllegalArgumentException("load writers must be 1..256, got " + loadWriters);
      }
      return new DemoOptions(this);
    }
  }
}
