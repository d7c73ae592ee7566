package io.pointsman.api.gtid;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A MySQL GTID set: for each source server uuid, the transaction numbers applied, as intervals.
 * Parsed from {@code @@gtid_executed} or the body of a {@code MySQL56/} position, e.g.
 * {@code 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:11-18,8f0d...:1-3}. Intervals are merged and
 * sorted and uuids lowercased and sorted, so the printed form is canonical.
 */
public final class MysqlGtidSet implements GtidSet {
  private static final Pattern UUID = Pattern.compile(
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern TAG = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,31}");
  private static final MysqlGtidSet EMPTY = new MysqlGtidSet(new TreeMap<>());

  /** A closed range of transaction numbers, {@code start <= end}, both at least 1. */
  public record Interval(long start, long end) {
    public Interval {
      if (start < 1 || end < start) {
        throw new IllegalArgumentException("interval " + start + "-" + end + " is empty or starts below 1");
      }
    }

    boolean covers(Interval other) {
      return start <= other.start && other.end <= end;
    }

    @Override
    public String toString() {
      return start == end ? Long.toString(start) : start + "-" + end;
    }
  }

  private final SortedMap<String, List<Interval>> byUuid;

  private MysqlGtidSet(SortedMap<String, List<Interval>> byUuid) {
    this.byUuid = byUuid;
  }

  public static MysqlGtidSet empty() {
    return EMPTY;
  }

  /**
   * Parses {@code uuid:interval[:interval]...[,uuid:...]}. Whitespace around entries is ignored
   * (MySQL prints a newline after each comma); an interval whose end is below its start is empty,
   * as MySQL treats it. GTID tags (MySQL 8.3+) are refused: Vitess positions cannot carry them.
   *
   * @throws PointsmanException INVALID_ARGUMENT naming the offending part
   */
  public static MysqlGtidSet parse(String text) {
    Objects.requireNonNull(text, "text");
    SortedMap<String, List<Interval>> parsed = new TreeMap<>();
    for (String entry : text.split(",", -1)) {
      String uuidSet = entry.strip();
      if (uuidSet.isEmpty()) {
        continue;
      }
      String[] parts = uuidSet.split(":", -1);
      if (parts.length < 2) {
        throw invalid(text, "'" + GtidText.excerpt(uuidSet) + "' is not uuid:interval");
      }
      if (!UUID.matcher(parts[0]).matches()) {
        throw invalid(text, "'" + GtidText.excerpt(parts[0]) + "' is not a server uuid");
      }
      List<Interval> intervals = parsed.computeIfAbsent(parts[0].toLowerCase(Locale.ROOT), k -> new ArrayList<>());
      for (int i = 1; i < parts.length; i++) {
        parseInterval(text, parts[i], intervals);
      }
    }
    return normalized(parsed);
  }

  private static void parseInterval(String text, String part, List<Interval> into) {
    int dash = part.indexOf('-');
    String startText = dash < 0 ? part : part.substring(0, dash);
    String endText = dash < 0 ? part : part.substring(dash + 1);
    long start = GtidText.parseDecimal(startText);
    long end = GtidText.parseDecimal(endText);
    if (start < 0 || end < 0) {
      if (dash < 0 && TAG.matcher(part).matches()) {
        throw invalid(text, "GTID tags ('" + part + "') are not supported");
      }
      throw invalid(text, "'" + GtidText.excerpt(part) + "' is not an interval such as 7 or 1-42");
    }
    if (start < 1) {
      throw invalid(text, "interval '" + part + "' starts below 1");
    }
    if (end >= start) {
      into.add(new Interval(start, end));
    }
  }

  private static MysqlGtidSet normalized(SortedMap<String, List<Interval>> raw) {
    SortedMap<String, List<Interval>> out = new TreeMap<>();
    for (Map.Entry<String, List<Interval>> e : raw.entrySet()) {
      List<Interval> merged = merge(e.getValue());
      if (!merged.isEmpty()) {
        out.put(e.getKey(), merged);
      }
    }
    return out.isEmpty() ? EMPTY : new MysqlGtidSet(out);
  }

  /** Sorts and merges overlapping and adjacent intervals (1-5 and 6-9 become 1-9). */
  private static List<Interval> merge(List<Interval> intervals) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.sort((a, b) -> Long.compare(a.start, b.start));
    List<Interval> merged = new ArrayList<>();
    for (Interval iv : sorted) {
      if (!merged.isEmpty()) {
        Interval last = merged.get(merged.size() - 1);
        // last.end + 1 cannot overflow in practice (GNOs stay far below 2^63), but guard anyway.
        if (last.end == Long.MAX_VALUE || iv.start <= last.end + 1) {
          merged.set(merged.size() - 1, new Interval(last.start, Math.max(last.end, iv.end)));
          continue;
        }
      }
      merged.add(iv);
    }
    return List.copyOf(merged);
  }

  /** The intervals per server uuid (lowercase, sorted). */
  public SortedMap<String, List<Interval>> intervals() {
    return Collections.unmodifiableSortedMap(byUuid);
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MYSQL56;
  }

  @Override
  public boolean contains(GtidSet other) {
    MysqlGtidSet o = sameFlavor(other);
    for (Map.Entry<String, List<Interval>> e : o.byUuid.entrySet()) {
      List<Interval> mine = byUuid.get(e.getKey());
      if (mine == null) {
        return false;
      }
      for (Interval wanted : e.getValue()) {
        // Both sides are merged, so an interval is contained iff one of ours covers it whole.
        if (mine.stream().noneMatch(iv -> iv.covers(wanted))) {
          return false;
        }
      }
    }
    return true;
  }

  private static MysqlGtidSet sameFlavor(GtidSet other) {
    Objects.requireNonNull(other, "other");
    if (other instanceof MysqlGtidSet m) {
      return m;
    }
    throw PointsmanException.invalidArgument(
        "cannot compare a MySQL56 GTID set with a " + other.flavor().prefix() + " one");
  }

  @Override
  public boolean isEmpty() {
    return byUuid.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MysqlGtidSet m && byUuid.equals(m.byUuid);
  }

  @Override
  public int hashCode() {
    return byUuid.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, List<Interval>> e : byUuid.entrySet()) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(e.getKey());
      for (Interval iv : e.getValue()) {
        sb.append(':').append(iv);
      }
    }
    return sb.toString();
  }

  private static PointsmanException invalid(String text, String why) {
    return PointsmanException.invalidArgument("invalid MySQL56 GTID set '" + GtidText.excerpt(text) + "': " + why);
  }
}
