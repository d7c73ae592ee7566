package io.pointsman.api.gtid;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.pointsman.api.errors.PointsmanException;
import java.util.Objects;
import java.util.Optional;

/**
 * A replication position as Vitess encodes it: {@code <flavor>/<gtid set>}, e.g.
 * {@code MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5} or {@code MariaDB/0-1-42,1-2-7}, or the
 * zero position (encoded as the empty string: a stream that has not started yet). Immutable, pure
 * and JSON-encoded as its string, so it travels in workflow history.
 */
public final class Position {
  /** No position at all; every position has reached it, and it has reached only itself. */
  public static final Position ZERO = new Position(null);

  private final GtidSet gtids;

  private Position(GtidSet gtids) {
    this.gtids = gtids;
  }

  public static Position of(GtidSet gtids) {
    return new Position(Objects.requireNonNull(gtids, "gtids"));
  }

  /**
   * Decodes {@code <flavor>/<set>}; the empty string is {@link #ZERO}. A set without a flavor is
   * refused rather than guessed, since the two flavors' sets look nothing alike to a reader.
   *
   * @throws PointsmanException INVALID_ARGUMENT with the reason
   */
  @JsonCreator
  public static Position parse(String encoded) {
    if (encoded == null || encoded.isEmpty()) {
      return ZERO;
    }
    int slash = encoded.indexOf('/');
    if (slash < 0) {
      throw PointsmanException.invalidArgument("position '" + GtidText.excerpt(encoded)
          + "' has no flavor: expected MySQL56/<gtid set> or MariaDB/<gtid position>");
    }
    GtidFlavor flavor = GtidFlavor.fromPrefix(encoded.substring(0, slash));
    return of(flavor.parseSet(encoded.substring(slash + 1)));
  }

  /** A position from a server's flavor-less GTID text, e.g. {@code @@gtid_binlog_pos}. */
  public static Position parse(GtidFlavor flavor, String set) {
    return of(flavor.parseSet(Objects.requireNonNull(set, "set")));
  }

  /** The stored form: {@code <flavor>/<set>}, or "" for {@link #ZERO}. */
  @JsonValue
  public String encode() {
    return gtids == null ? "" : gtids.flavor().prefix() + "/" + gtids;
  }

  public boolean isZero() {
    return gtids == null;
  }

  public Optional<GtidFlavor> flavor() {
    return gtids == null ? Optional.empty() : Optional.of(gtids.flavor());
  }

  /** The GTID set; empty for {@link #ZERO}. */
  public Optional<GtidSet> gtids() {
    return Optional.ofNullable(gtids);
  }

  /**
   * Whether this position is equal to or after {@code other} ("has A reached B"), as Vitess's
   * {@code Position.AtLeast}: anything has reached ZERO, ZERO has reached nothing else.
   *
   * @throws PointsmanException INVALID_ARGUMENT when both are non-zero and of different flavors
   */
  public boolean atLeast(Position other) {
    Objects.requireNonNull(other, "other");
    if (other.gtids == null) {
      return true;
    }
    if (gtids == null) {
      return false;
    }
    return gtids.contains(other.gtids);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Position p && Objects.equals(gtids, p.gtids);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(gtids);
  }

  /** The encoded form, or {@code (zero position)} so messages never show an empty quote. */
  @Override
  public String toString() {
    return gtids == null ? "(zero position)" : encode();
  }
}
