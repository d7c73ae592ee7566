package io.pointsman.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Order statistics of repeated measurements, by the nearest-rank method: p50 of four samples is the
 * second, p99 of twenty is the twentieth. A benchmark reports these, never a single timing.
 *
 * @param samples the measurements in nanoseconds, sorted
 */
record Stats(long[] samples) {
  Stats {
    samples = samples.clone();
    Arrays.sort(samples);
  }

  static Stats ofNanos(List<Long> nanos) {
    return new Stats(nanos.stream().mapToLong(Long::longValue).toArray());
  }

  /** Counts (events, bytes, tasks) rather than times: read them with {@link #p50Count} and {@link #maxCount}. */
  static Stats ofCounts(List<Long> counts) {
    return ofNanos(counts);
  }

  static Stats ofDurations(List<Duration> durations) {
    return new Stats(durations.stream().mapToLong(Duration::toNanos).toArray());
  }

  int count() {
    return samples.length;
  }

  /** The arithmetic mean (zero when there is no sample): what a number of such waits add up to, divided by it. */
  Duration mean() {
    if (samples.length == 0) {
      return Duration.ZERO;
    }
    long sum = 0;
    for (long s : samples) {
      sum += s;
    }
    return Duration.ofNanos(sum / samples.length);
  }

  /** The nearest-rank percentile, {@code p} from 0 (exclusive) to 100. */
  Duration percentile(double p) {
    return Duration.ofNanos(value(p));
  }

  long p50Count() {
    return value(50);
  }

  long maxCount() {
    return value(100);
  }

  private long value(double p) {
    if (samples.length == 0) {
      throw new IllegalStateException("no samples");
    }
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
    }
    int rank = (int) Math.ceil(p / 100.0 * samples.length);
    return samples[Math.max(0, rank - 1)];
  }

  Duration p50() {
    return percentile(50);
  }

  Duration p99() {
    return percentile(99);
  }

  Duration max() {
    return percentile(100);
  }

  /** p50 / p99 / max in milliseconds, e.g. {@code 312 / 455 / 461}; sub-millisecond values keep two decimals. */
  String summaryMillis() {
    if (samples.length == 0) {
      return "–";
    }
    return millis(p50()) + " / " + millis(p99()) + " / " + millis(max());
  }

  static String millis(Duration d) {
    double ms = d.toNanos() / 1e6;
    return ms < 10 ? String.format(Locale.ROOT, "%.2f", ms) : String.format(Locale.ROOT, "%.0f", ms);
  }
}
