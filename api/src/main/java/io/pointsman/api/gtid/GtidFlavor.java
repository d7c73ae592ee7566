package io.pointsman.api.gtid;

import io.pointsman.api.errors.PointsmanException;

/**
 * The two GTID flavors pointsman understands, named as Vitess prefixes them in an encoded position
 * ({@code MySQL56/...}, {@code MariaDB/...}). Their sets mean different things: a MySQL set lists
 * every transaction applied, a MariaDB position only the last sequence number per replication
 * domain, so the two can never be compared with each other.
 */
public enum GtidFlavor {
  /** MySQL 5.6 and later: {@code <server uuid>:<intervals>,...}. */
  MYSQL56("MySQL56"),
  /** MariaDB 10.0 and later: {@code <domain>-<server id>-<sequence>,...}. */
  MARIADB("MariaDB");

  private final String prefix;

  GtidFlavor(String prefix) {
    this.prefix = prefix;
  }

  /** The flavor name as it appears before the '/' of an encoded position. */
  public String prefix() {
    return prefix;
  }

  /** The flavor an encoded position names; INVALID_ARGUMENT for anything else (Vitess's FilePos included). */
  public static GtidFlavor fromPrefix(String prefix) {
    for (GtidFlavor f : values()) {
      if (f.prefix.equals(prefix)) {
        return f;
      }
    }
    throw PointsmanException.invalidArgument("unknown GTID flavor '" + GtidText.excerpt(prefix)
        + "': expected MySQL56 or MariaDB");
  }

  /** Parses the flavor-less text of a set, as the server prints it ({@code @@gtid_executed}, {@code @@gtid_binlog_pos}). */
  public GtidSet parseSet(String text) {
    return switch (this) {
      case MYSQL56 -> MysqlGtidSet.parse(text);
      case MARIADB -> MariadbGtidSet.parse(text);
    };
  }
}
