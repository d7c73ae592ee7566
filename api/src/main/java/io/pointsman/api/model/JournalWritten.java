package io.pointsman.api.model;

import java.time.Duration;
import java.time.Instant;

/**
 * A switch's journal on one source shard, and when it was written.
 *
 * @param shard the source shard
 * @param writtenAt when, by the primary's clock; null when pointsman did not record it (Vitess wrote the journal)
 * @param age how long ago, by the same clock, when read; null with {@code writtenAt}
 */
public record JournalWritten(String shard, Instant writtenAt, Duration age) {
  public boolean known() {
    return writtenAt != null && age != null;
  }
}
