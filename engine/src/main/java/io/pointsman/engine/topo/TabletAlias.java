package io.pointsman.engine.topo;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import java.util.Optional;

/** Vitess's TabletAlias: a cell and a uid, printed as {@code <cell>-<uid %010d>}. */
public record TabletAlias(@JsonProperty("cell") String cell, @JsonProperty("uid") long uid) {
  /** The digits of the largest uid, 4294967295. */
  private static final int UID_DIGITS = 10;

  public TabletAlias {
    Names.cell(cell);
    if (uid < 0 || uid > 0xFFFF_FFFFL) {
      throw PointsmanException.invalidArgument("tablet uid " + uid + " is outside 0..4294967295");
    }
  }

  /** Parses {@code zone1-0000000100}. */
  public static TabletAlias parse(String alias) {
    int dash = alias == null ? -1 : alias.lastIndexOf('-');
    if (dash <= 0 || dash == alias.length() - 1) {
      throw PointsmanException.invalidArgument("tablet alias '" + alias + "' is not <cell>-<uid>");
    }
    try {
      return new TabletAlias(alias.substring(0, dash), Long.parseLong(alias.substring(dash + 1)));
    } catch (NumberFormatException e) {
      throw PointsmanException.invalidArgument("tablet alias '" + alias + "' has a uid that is not a number");
    }
  }

  /** {@link #parse}, or empty for text that is not an alias (e.g. a term written by another tool). */
  public static Optional<TabletAlias> tryParse(String alias) {
    try {
      return Optional.of(parse(alias));
    } catch (PointsmanException notAnAlias) {
      return Optional.empty();
    }
  }

  /**
   * Padded by hand: topology keys and primary lookups print aliases in every step, and String.format
   * was 2% of a bench run's sampled CPU (JFR), more than any other single pointsman method.
   */
  @Override
  public String toString() {
    String digits = Long.toString(uid);
    return cell + "-" + "0".repeat(UID_DIGITS - digits.length()) + digits;
  }
}
