package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.GtidFlavor;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.api.gtid.Position;
import java.util.ArrayList;
import java.util.List;

/**
 * What the runner does with positions beyond parsing and comparing them: it reads MariaDB sources
 * only, and moves a position one source transaction at a time.
 */
final class MariaDbPositions {
  private MariaDbPositions() {}

  /** The GTIDs of a stored position; INVALID_ARGUMENT for a zero or a MySQL position. */
  static MariadbGtidSet parse(String encoded) {
    Position p = Position.parse(encoded);
    if (p.flavor().filter(f -> f == GtidFlavor.MARIADB).isEmpty()) {
      throw PointsmanException.invalidArgument("position '" + encoded
          + "' is not a MariaDB position; the sandbox stream runner reads MariaDB sources only");
    }
    return (MariadbGtidSet) p.gtids().orElseThrow();
  }

  /** The position after a transaction with this GTID: its domain moves on, the others stay. */
  static MariadbGtidSet advance(MariadbGtidSet set, MariadbGtidSet.Gtid gtid) {
    List<MariadbGtidSet.Gtid> gtids = new ArrayList<>(set.gtids().values());
    gtids.removeIf(g -> g.domain() == gtid.domain());
    gtids.add(gtid);
    return MariadbGtidSet.of(gtids);
  }

  /** Whether the transaction with this GTID is at or before the position (already applied). */
  static boolean includes(MariadbGtidSet set, MariadbGtidSet.Gtid gtid) {
    MariadbGtidSet.Gtid have = set.gtids().get(gtid.domain());
    return have != null && Long.compareUnsigned(have.sequence(), gtid.sequence()) >= 0;
  }

  /** Whether a stream at {@code set} has reached {@code stop}. */
  static boolean reached(MariadbGtidSet set, Position stop) {
    return Position.of(set).atLeast(stop);
  }

  /** The stored form, {@code MariaDB/0-1-17}. */
  static String encode(MariadbGtidSet set) {
    return Position.of(set).encode();
  }
}
