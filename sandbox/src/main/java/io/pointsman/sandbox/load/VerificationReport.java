package io.pointsman.sandbox.load;

import java.time.Duration;
import java.util.List;

/**
 * What {@link LoadVerifier} found.
 *
 * @param attempted writes the run answered
 * @param acknowledged writes the router acknowledged
 * @param missing keys of acknowledged writes not found where the topology serves them now
 * @param duplicated keys of acknowledged writes found more than once there
 * @param rowsFound rows counted for the acknowledged keys, duplicates included
 * @param errors the writes that failed (not acknowledged; they prove nothing either way)
 * @param longestGapBetweenAcks the longest stretch without an acknowledgement, from the start of the run
 */
public record VerificationReport(
    int attempted,
    int acknowledged,
    List<Long> missing,
    List<Long> duplicated,
    long rowsFound,
    List<LoadRecord> errors,
    Duration longestGapBetweenAcks,
    Duration maxLatency,
    Duration p50Latency,
    Duration p99Latency) {

  public VerificationReport {
    missing = List.copyOf(missing);
    duplicated = List.copyOf(duplicated);
    errors = List.copyOf(errors);
  }

  /** Every acknowledged write is present exactly once. */
  public boolean lostNothing() {
    return missing.isEmpty() && duplicated.isEmpty();
  }

  /** One line for logs and test failures. */
  public String summary() {
    return String.format("%d writes, %d acknowledged, %d missing%s, %d duplicated%s, %d failed%s; longest gap "
            + "between acks %d ms, latency p50 %d ms, p99 %d ms, max %d ms",
        attempted, acknowledged, missing.size(), sample(missing), duplicated.size(), sample(duplicated),
        errors.size(), errors.isEmpty() ? "" : " (first: " + errors.get(0).message() + ")",
        longestGapBetweenAcks.toMillis(), p50Latency.toMillis(), p99Latency.toMillis(), maxLatency.toMillis());
  }

  private static String sample(List<Long> keys) {
    return keys.isEmpty() ? "" : " " + keys.subList(0, Math.min(10, keys.size()));
  }
}
