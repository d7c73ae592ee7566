package io.pointsman.engine.concurrent;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.Objects;

/**
 * How long a wait that reads until something has happened pauses between two reads: {@code first}
 * after the first read, then twice the pause before, up to {@code cap}. Short at first because the
 * waits inside the write window (a stream catching up with a position that the barrier has just
 * moved, streams stopping at one) mostly end a few milliseconds after they begin, and a fixed pause
 * at the cap spends most of such a wait asleep after the stream has arrived; doubling, so that a
 * long wait reads hardly more often than a fixed pause at the cap would.
 */
public record PollSchedule(Duration first, Duration cap) {
  /** The first pause of {@link #upTo}: about what one read of a stream's row costs on a loaded primary. */
  static final Duration FIRST = Duration.ofMillis(1);

  public PollSchedule {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(cap, "cap");
    if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
      throw PointsmanException.invalidArgument("a poll schedule needs a positive first pause no longer than its cap;"
          + " got first " + first + ", cap " + cap);
    }
  }

  /** Pauses from 1 ms (or {@code cap}, if shorter) doubling up to {@code cap}. */
  public static PollSchedule upTo(Duration cap) {
    Objects.requireNonNull(cap, "cap");
    return new PollSchedule(cap.compareTo(FIRST) < 0 ? cap : FIRST, cap);
  }

  /** The pause after read number {@code reads} (1 for the first read); never longer than the cap. */
  public Duration pause(int reads) {
    if (reads < 1) {
      throw PointsmanException.invalidArgument("reads are counted from 1, got " + reads);
    }
    Duration d = first;
    // at most as many doublings as it takes to pass the cap, whatever the count of reads
    for (int i = 1; i < reads && d.compareTo(cap) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(cap) > 0 ? cap : d;
  }

  /**
   * Sleeps the pause after read number {@code reads}, but not past {@code deadline} (a
   * {@link System#nanoTime} value); returns at once when the deadline has passed.
   */
  public void sleepAfter(int reads, long deadline) throws InterruptedException {
    long nanos = Math.min(pause(reads).toNanos(), deadline - System.nanoTime());
    if (nanos > 0) {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
  }
}
