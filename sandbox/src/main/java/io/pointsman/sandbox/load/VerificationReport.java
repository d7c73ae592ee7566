package io.pointsman.sandbox.load;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@link LoadVerifier} found.
 *
 * @param attempted writes the run answered
 * @param acknowledged writes the router acknowledged
 * @param missing keys of acknowledged writes not found where the topology serves them now
 * @param duplicated keys of acknowledged writes found more than once on the serving shard, twice on
 *     any shard, or on a shard whose key range does not hold them
 * @param strayCopies where each extra copy of {@code duplicated} was found, one line each
 * @param rowsFound rows counted on the serving shards of the acknowledged keys, duplicates included
 * @param errors the writes that failed (not acknowledged; they prove nothing either way)
 * @param longestGapBetweenAcks the longest stretch without an acknowledgement, from the start of the run
 */
public record VerificationReport(
    int attempted,
    int acknowledged,
    List<Long> missing,
    List<Long> duplicated,
    List<String> strayCopies,
    long rowsFound,
    List<LoadRecord> errors,
    Duration longestGapBetweenAcks,
    Duration maxLatency,
    Duration p50Latency,
    Duration p99Latency) {

  public VerificationReport {
    missing = List.copyOf(missing);
    duplicated = List.copyOf(duplicated);
    strayCopies = List.copyOf(strayCopies);
    errors = List.copyOf(errors);
  }

  /**
   * At least one write was acknowledged and every acknowledged write is present exactly once. A run
   * without an acknowledged write proves nothing (every write may have failed), so it is no pass.
   */
  public boolean lostNothing() {
    return acknowledged > 0 && missing.isEmpty() && duplicated.isEmpty();
  }

  /** Each distinct error message with how many writes failed with it, most frequent first. */
  public Map<String, Long> errorCounts() {
    Map<String, Long> counts = errors.stream().collect(Collectors.groupingBy(r -> String.valueOf(r.message()),
        LinkedHashMap::new, Collectors.counting()));
    return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }

  /** One line for logs and test failures: names every distinct error (up to five) and where extra copies are. */
  public String summary() {
    return String.format("%d writes, %d acknowledged%s, %d missing%s, %d duplicated%s%s, %d failed%s; longest gap "
            + "between acks %d ms, latency p50 %d ms, p99 %d ms, max %d ms",
        attempted, acknowledged, acknowledged == 0 ? " (nothing verified)" : "", missing.size(), sample(missing),
        duplicated.size(), sample(duplicated), strayCopies.isEmpty() ? ""
            : " " + strayCopies.subList(0, Math.min(5, strayCopies.size())),
        errors.size(), errorSample(), longestGapBetweenAcks.toMillis(), p50Latency.toMillis(),
        p99Latency.toMillis(), maxLatency.toMillis());
  }

  private String errorSample() {
    if (errors.isEmpty()) {
      return "";
    }
    Map<String, Long> counts = errorCounts();
    String named = counts.entrySet().stream().limit(5).map(e -> e.getValue() + "× " + e.getKey())
        .collect(Collectors.joining("; "));
    return " (" + named + (counts.size() > 5 ? "; and " + (counts.size() - 5) + " other errors" : "") + ")";
  }

  private static String sample(List<Long> keys) {
    return keys.isEmpty() ? "" : " " + keys.subList(0, Math.min(10, keys.size()));
  }
}
