package io.pointsman.sandbox.load;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link LoadWriter} sends and how fast. Build it with {@link #builder()}; a direct
 * construction is checked the same way.
 *
 * @param writers how many writes may be in flight at once (each writer sends one at a time)
 */
public record LoadOptions(double ratePerSecond, int writers, Duration duration, WriteFactory writes) {
  /** A run never schedules more writes than this, whatever rate and duration say. */
  public static final long MAX_WRITES = 10_000_000;

  public LoadOptions {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw PointsmanException.invalidArgument("load rate must be a positive number, was " + ratePerSecond);
    }
    if (writers < 1 || writers > 1000) {
      throw PointsmanException.invalidArgument("writers must be between 1 and 1000, was " + writers);
    }
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(writes, "writes");
    if (duration.isNegative() || duration.isZero()) {
      throw PointsmanException.invalidArgument("load duration must be positive, was " + duration);
    }
    long total = totalWrites(duration, ratePerSecond);
    if (total > MAX_WRITES) {
      throw PointsmanException.invalidArgument("rate × duration schedules " + total + " writes; the limit is "
          + MAX_WRITES);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The writes the run schedules: those due before the duration ends. */
  public long totalWrites() {
    return totalWrites(duration, ratePerSecond);
  }

  private static long totalWrites(Duration duration, double ratePerSecond) {
    return (long) Math.floor(duration.toNanos() / 1e9 * ratePerSecond);
  }

  /** When write {@code seq} is due, in nanoseconds after the start. */
  long dueOffsetNanos(long seq) {
    return Math.round(seq * 1e9 / ratePerSecond);
  }

  @Override
  public String toString() {
    return "LoadOptions{rate=" + ratePerSecond + "/s, writers=" + writers + ", duration=" + duration + "}";
  }

  public static final class Builder {
    private double ratePerSecond = 50;
    private int writers = 16;
    private Duration duration = Duration.ofSeconds(10);
    private WriteFactory writes = WriteFactory.customerInserts("customer", 1_000_000);

    private Builder() {}

    public Builder ratePerSecond(double rate) {
      this.ratePerSecond = rate;
      return this;
    }

    /**
     * Writers send one write at a time; while all are busy (e.g. buffered by the router during a
     * switch) later writes start late, and their records show it. Size this at least rate × the
     * longest expected hold to keep the offered rate constant.
     */
    public Builder writers(int writers) {
      this.writers = writers;
      return this;
    }

    public Builder duration(Duration duration) {
      this.duration = Objects.requireNonNull(duration, "duration");
      return this;
    }

    public Builder writes(WriteFactory writes) {
      this.writes = Objects.requireNonNull(writes, "writes");
      return this;
    }

    public LoadOptions build() {
      return new LoadOptions(ratePerSecond, writers, duration, writes);
    }
  }
}
