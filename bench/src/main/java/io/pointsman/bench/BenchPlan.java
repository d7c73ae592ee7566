package io.pointsman.bench;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one benchmark run measures, and how much of it.
 *
 * @param cycles write-window cycles per migration and rate; each is two switches through Temporal
 *     and two executed directly, so 10 cycles give 20 switches of each
 * @param rates the load rates (writes per second) of the write-window runs
 * @param scaleShards the Reshard sizes of the scale runs: one shard split into each of these
 * @param scaleTables the MoveTables sizes of the scale runs, in tables
 * @param scaleCycles cycles (a switch forward and one back, through Temporal) per scale point
 * @param scaleRate the load rate during the scale runs
 * @param locks the lock benchmark's sizes
 * @param lagRates the rates (writes per second straight into the source) the stream runner's lag is
 *     measured at; empty skips it
 * @param lagDuration how long each lag rate runs
 * @param costRounds rounds of the dormant barrier's cost per write (each one without and one with); 0 skips it
 * @param costRound how long each of those runs
 * @param localActivityCalls measured calls per wait of the local-activity cost ({@link LocalActivityCost}); 0 skips it
 */
record BenchPlan(int cycles, List<Double> rates, List<Integer> scaleShards, List<Integer> scaleTables,
    int scaleCycles, double scaleRate, LockBench.Options locks, List<Double> lagRates, Duration lagDuration,
    int costRounds, Duration costRound, int localActivityCalls) {

  BenchPlan(int cycles, List<Double> rates, List<Integer> scaleShards, List<Integer> scaleTables,
      int scaleCycles, double scaleRate, LockBench.Options locks) {
    this(cycles, rates, scaleShards, scaleTables, scaleCycles, scaleRate, locks, List.of(), Duration.ofSeconds(10),
        0, Duration.ofSeconds(5), 0);
  }

  BenchPlan {
    if (localActivityCalls != 0 && localActivityCalls < 2) {
      throw new IllegalArgumentException("the local-activity cost takes 0 (none) or at least 2 calls, was "
          + localActivityCalls);
    }
    if (costRounds < 0 || costRound.isNegative() || costRound.isZero()) {
      throw new IllegalArgumentException("the barrier cost takes 0 or more rounds of a positive duration, was "
          + costRounds + " of " + costRound);
    }
    lagRates = List.copyOf(lagRates);
    for (double r : lagRates) {
      if (!(r > 0) || r > 20_000) {
        throw new IllegalArgumentException("a lag rate must be above 0 and at most 20000 writes/s, was " + r);
      }
    }
    if (lagDuration.isNegative() || lagDuration.isZero()) {
      throw new IllegalArgumentException("the lag run's duration must be positive, was " + lagDuration);
    }
    rates = List.copyOf(rates);
    scaleShards = List.copyOf(scaleShards);
    scaleTables = List.copyOf(scaleTables);
    Objects.requireNonNull(locks, "locks");
    if (cycles < 0 || scaleCycles < 1) {
      throw new IllegalArgumentException("cycles must be 0 or more and scale cycles 1 or more, were " + cycles
          + " and " + scaleCycles);
    }
    for (double r : rates) {
      if (!(r > 0) || r > 5000) {
        throw new IllegalArgumentException("a load rate must be above 0 and at most 5000 writes/s, was " + r);
      }
    }
    if (!(scaleRate > 0) || scaleRate > 5000) {
      throw new IllegalArgumentException("the scale load rate must be above 0 and at most 5000 writes/s, was "
          + scaleRate);
    }
    for (int n : scaleShards) {
      if (n < 2 || n > 16 || Integer.bitCount(n) != 1) {
        throw new IllegalArgumentException("a Reshard scale point is 2, 4, 8 or 16 shards, was " + n);
      }
    }
    for (int n : scaleTables) {
      if (n < 2 || n > 2000) {
        throw new IllegalArgumentException("a MoveTables scale point is 2 to 2000 tables, was " + n);
      }
    }
  }

  /**
   * The full run of issue 8: 20 switches of each kind and executor at 100, 500 and 1000 writes/s
   * (500 because 1000 is about all the sandbox's router sustains on two cores, so it shows a
   * switch under saturation, not the switch alone), and every scale point, ten switches each: with
   * six, the median of the 10-table point moved 81-129 ms between runs, and the 1000-to-10 ratio
   * that issue 22 sets a target on moved with it.
   */
  static BenchPlan full() {
    return new BenchPlan(10, List.of(100.0, 500.0, 1000.0), List.of(2, 4, 8, 16), List.of(10, 100, 1000), 5, 100,
        new LockBench.Options(200, 100, Duration.ofSeconds(2), Duration.ofMinutes(10)),
        List.of(1000.0, 2000.0), Duration.ofSeconds(20), 3, Duration.ofSeconds(10), 500);
  }

  /** A few minutes of everything, for CI: the same code paths, too few samples to publish. */
  static BenchPlan smoke() {
    return new BenchPlan(1, List.of(50.0), List.of(2), List.of(10), 1, 50,
        new LockBench.Options(20, 10, Duration.ofSeconds(2), Duration.ofSeconds(5)),
        List.of(2000.0), Duration.ofSeconds(3), 1, Duration.ofSeconds(2), 20);
  }
}
