package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.Comparator;
import java.util.List;

/** Key-range arithmetic Vitess's key package does: intersection and coverage checks. */
final class KeyRanges {
  private KeyRanges() {}

  /** Whether two ranges share a keyspace id; open bounds reach the ends of the space. */
  static boolean intersect(KeyRange a, KeyRange b) {
    return startsBeforeEnd(a.start(), b.end()) && startsBeforeEnd(b.start(), a.end());
  }

  /** The Vitess string of a range for filters: {@code -80}, {@code 80-c0}, and {@code -} for everything. */
  static String string(KeyRange r) {
    return r.shardName();
  }

  /**
   * Vitess's ValidateForReshard: sources and targets must each be gap-free and cover the same
   * span.
   *
   * @throws PointsmanException INVALID_ARGUMENT naming what does not line up
   */
  static void checkSameCoverage(List<KeyRange> sources, List<KeyRange> targets) {
    List<KeyRange> s = sorted(sources);
    List<KeyRange> t = sorted(targets);
    checkContiguous("source", s);
    checkContiguous("target", t);
    if (!sameBound(s.get(0).start(), t.get(0).start())
        || !sameBound(s.get(s.size() - 1).end(), t.get(t.size() - 1).end())) {
      throw PointsmanException.invalidArgument("source shards " + s + " and target shards " + t
          + " do not cover the same key range");
    }
  }

  private static void checkContiguous(String what, List<KeyRange> ranges) {
    for (int i = 1; i < ranges.size(); i++) {
      String end = ranges.get(i - 1).end();
      String start = ranges.get(i).start();
      if (end.isEmpty() || !sameBound(end, start)) {
        throw PointsmanException.invalidArgument(what + " shards " + ranges + " are not contiguous: "
            + ranges.get(i - 1) + " is followed by " + ranges.get(i));
      }
    }
  }

  /** Bounds are equal when both are open, or both set and equal as left-aligned hex ("80" = "8000"). */
  private static boolean sameBound(String a, String b) {
    return a.isEmpty() ? b.isEmpty() : !b.isEmpty() && Names.compareHexBounds(a, b) == 0;
  }

  private static List<KeyRange> sorted(List<KeyRange> ranges) {
    return ranges.stream().sorted(Comparator.comparing(KeyRange::start, Names::compareHexBounds)).toList();
  }

  private static boolean startsBeforeEnd(String start, String end) {
    return end.isEmpty() || start.isEmpty() || Names.compareHexBounds(start, end) < 0;
  }
}
