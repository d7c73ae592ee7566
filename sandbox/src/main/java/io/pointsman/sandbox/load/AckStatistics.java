package io.pointsman.sandbox.load;

import java.time.Duration;
import java.util.List;

/**
 * Timing of a load run's acknowledged writes: the longest stretch without an acknowledgement (from
 * the start of the run to the first, then between consecutive ones in answer order) and latency
 * percentiles (nearest rank).
 */
public record AckStatistics(Duration longestGapBetweenAcks, Duration maxLatency, Duration p50Latency, Duration p99Latency) {

  public static AckStatistics of(long startNanos, List<LoadRecord> records) {
    long[] acks = records.stream().filter(LoadRecord::acknowledged).mapToLong(LoadRecord::ackNanos).sorted().toArray();
    long[] latencies = records.stream().filter(LoadRecord::acknowledged)
        .mapToLong(r -> r.ackNanos() - r.sentNanos()).sorted().toArray();
    long longestGap = 0;
    long previous = startNanos;
    for (long ack : acks) {
      longestGap = Math.max(longestGap, ack - previous);
      previous = ack;
    }
    return new AckStatistics(Duration.ofNanos(longestGap),
        Duration.ofNanos(latencies.length == 0 ? 0 : latencies[latencies.length - 1]),
        Duration.ofNanos(percentile(latencies, 50)), Duration.ofNanos(percentile(latencies, 99)));
  }

  private static long percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }
}
