package io.pointsman.bench;

import io.pointsman.sandbox.load.LoadRecord;
import java.time.Duration;
import java.util.List;

/**
 * What constant-rate writers saw of one switch (docs/failure-scenarios.md §4): {@code W}, the longest gap
 * between consecutive acknowledged writes among the gaps that overlap the switch; {@code B}, the
 * longest latency of a write in flight during the switch (buffered, then acknowledged); {@code E},
 * the writes in flight during it that failed.
 */
record WriteWindow(Duration longestAckGap, Duration longestWrite, long errors, long writes) {

  static WriteWindow of(List<LoadRecord> records, long fromNanos, long toNanos) {
    long[] acks = records.stream().filter(LoadRecord::acknowledged).mapToLong(LoadRecord::ackNanos).sorted()
        .toArray();
    long gap = 0;
    for (int i = 1; i < acks.length; i++) {
      boolean overlaps = acks[i] > fromNanos && acks[i - 1] < toNanos;
      if (overlaps) {
        gap = Math.max(gap, acks[i] - acks[i - 1]);
      }
    }
    long longest = 0;
    long errors = 0;
    long writes = 0;
    for (LoadRecord r : records) {
      if (r.sentNanos() < toNanos && r.ackNanos() > fromNanos) {
        writes++;
        if (r.acknowledged()) {
          longest = Math.max(longest, r.ackNanos() - r.sentNanos());
        } else {
          errors++;
        }
      }
    }
    return new WriteWindow(Duration.ofNanos(gap), Duration.ofNanos(longest), errors, writes);
  }
}
