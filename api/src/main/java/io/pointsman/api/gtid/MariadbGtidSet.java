package io.pointsman.api.gtid;

import io.pointsman.api.errors.PointsmanException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A MariaDB GTID position: for each replication domain, the last GTID applied, e.g.
 * {@code 0-1-42,1-2-7} ({@code @@gtid_binlog_pos} or the body of a {@code MariaDB/} position).
 * Within a domain sequence numbers only grow, so "reached" compares sequence numbers per domain.
 */
public final class MariadbGtidSet implements GtidSet {
  private static final long MAX_UINT32 = 0xFFFF_FFFFL;
  private static final MariadbGtidSet EMPTY = new MariadbGtidSet(new TreeMap<>());

  /**
   * One MariaDB GTID. Domain and server id are unsigned 32-bit; the sequence number is unsigned
   * 64-bit, held in a {@code long} and compared unsigned.
   */
  public record Gtid(long domain, long server, long sequence) {
    public Gtid {
      if (domain < 0 || domain > MAX_UINT32 || server < 0 || server > MAX_UINT32) {
        throw new IllegalArgumentException("domain and server id must be unsigned 32-bit numbers");
      }
    }

    @Override
    public String toString() {
      return domain + "-" + server + "-" + Long.toUnsignedString(sequence);
    }
  }

  private final SortedMap<Long, Gtid> byDomain;

  private MariadbGtidSet(SortedMap<Long, Gtid> byDomain) {
    this.byDomain = byDomain;
  }

  public static MariadbGtidSet empty() {
    return EMPTY;
  }

  /** A set of the given GTIDs; for a domain given twice the higher sequence number wins. */
  public static MariadbGtidSet of(List<Gtid> gtids) {
    SortedMap<Long, Gtid> map = new TreeMap<>();
    gtids.forEach(g -> add(map, g));
    return map.isEmpty() ? EMPTY : new MariadbGtidSet(map);
  }

  /**
   * Parses {@code domain-server-sequence[,...]}. Whitespace around entries is ignored. A domain
   * listed twice keeps its highest sequence number, the one a server at this position has reached.
   *
   * @throws PointsmanException INVALID_ARGUMENT naming the offending part
   */
  public static MariadbGtidSet parse(String text) {
    Objects.requireNonNull(text, "text");
    SortedMap<Long, Gtid> map = new TreeMap<>();
    for (String entry : text.split(",", -1)) {
      String gtid = entry.strip();
      if (gtid.isEmpty()) {
        continue;
      }
      String[] parts = gtid.split("-", -1);
      if (parts.length != 3) {
        throw invalid(text, "'" + GtidText.excerpt(gtid) + "' is not domain-server-sequence");
      }
      long domain = GtidText.parseDecimal(parts[0]);
      long server = GtidText.parseDecimal(parts[1]);
      OptionalLong sequence = parseUnsigned64(parts[2]);
      if (domain < 0 || domain > MAX_UINT32) {
        throw invalid(text, "domain id '" + GtidText.excerpt(parts[0]) + "' is not an unsigned 32-bit number");
      }
      if (server < 0 || server > MAX_UINT32) {
        throw invalid(text, "server id '" + GtidText.excerpt(parts[1]) + "' is not an unsigned 32-bit number");
      }
      if (sequence.isEmpty()) {
        throw invalid(text, "sequence number '" + GtidText.excerpt(parts[2]) + "' is not an unsigned 64-bit number");
      }
      add(map, new Gtid(domain, server, sequence.getAsLong()));
    }
    return map.isEmpty() ? EMPTY : new MariadbGtidSet(map);
  }

  private static OptionalLong parseUnsigned64(String s) {
    if (s.isEmpty() || s.length() > 20 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseUnsignedLong(s));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static void add(SortedMap<Long, Gtid> map, Gtid gtid) {
    map.merge(gtid.domain(), gtid,
        (old, neu) -> Long.compareUnsigned(neu.sequence(), old.sequence()) > 0 ? neu : old);
  }

  /** The last GTID per domain, by domain. */
  public SortedMap<Long, Gtid> gtids() {
    return Collections.unmodifiableSortedMap(byDomain);
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public boolean contains(GtidSet other) {
    Objects.requireNonNull(other, "other");
    if (!(other instanceof MariadbGtidSet o)) {
      throw PointsmanException.invalidArgument(
          "cannot compare a MariaDB GTID set with a " + other.flavor().prefix() + " one");
    }
    for (Gtid wanted : o.byDomain.values()) {
      Gtid mine = byDomain.get(wanted.domain());
      if (mine == null || Long.compareUnsigned(mine.sequence(), wanted.sequence()) < 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean isEmpty() {
    return byDomain.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MariadbGtidSet m && byDomain.equals(m.byDomain);
  }

  @Override
  public int hashCode() {
    return byDomain.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Gtid g : byDomain.values()) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(g);
    }
    return sb.toString();
  }

  private static PointsmanException invalid(String text, String why) {
    return PointsmanException.invalidArgument("invalid MariaDB GTID position '" + GtidText.excerpt(text) + "': " + why);
  }
}
