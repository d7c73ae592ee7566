package io.pointsman.api.request;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as vtctldclient flags write them ({@code 30s}, {@code 2m}, {@code 1h30m}, {@code 500ms}),
 * also accepting ISO-8601 ({@code PT30S}) since that is what Java's own tools print.
 */
public final class GoDurations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

  /** Go's largest duration (int64 nanoseconds, about 292 years). */
  private static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);
  private static final double MAX_NANOS = (double) Long.MAX_VALUE;

  private GoDurations() {}

  /** Parses a duration; returns null when the text is not one (the caller names the field). */
  public static Duration parseOrNull(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String t = text.trim();
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        Duration d = Duration.parse(t);
        return d.compareTo(MAX) > 0 ? null : d;
      } catch (RuntimeException e) {
        return null;
      }
    }
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = PART.matcher(t);
    int at = 0;
    Duration total = Duration.ZERO;
    while (at < t.length()) {
      if (!m.find(at) || m.start() != at) {
        return null;
      }
      double amount = Double.parseDouble(m.group(1));
      long nanosPerUnit = switch (m.group(2)) {
        case "ns" -> 1L;
        case "us", "µs" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        default -> 3_600_000_000_000L;
      };
      double nanos = amount * nanosPerUnit;
      // Math.round saturates at Long.MAX_VALUE, which would turn "1111...1s" into 292 years
      // instead of an error; Go's ParseDuration refuses overflow, so do we
      if (nanos >= MAX_NANOS) {
        return null;
      }
      total = total.plusNanos(Math.round(nanos));
      if (total.compareTo(MAX) > 0) {
        return null;
      }
      at = m.end();
    }
    return total;
  }

  /** Formats the way Go prints durations, e.g. {@code 1h30m0s}, {@code 30s}, {@code 500ms}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return d.toMillis() + "ms";
    }
    StringBuilder sb = new StringBuilder();
    long h = d.toHours();
    long m = d.toMinutesPart();
    long s = d.toSecondsPart();
    int ms = d.toMillisPart();
    if (h > 0) {
      sb.append(h).append('h');
    }
    if (h > 0 || m > 0) {
      sb.append(m).append('m');
    }
    sb.append(s);
    if (ms > 0) {
      sb.append('.').append(String.format("%03d", ms).replaceAll("0+$", ""));
    }
    return sb.append('s').toString();
  }
}
