package io.pointsman.engine.mysql;

import io.pointsman.api.gtid.GtidFlavor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Which server a primary runs, which decides the GTID flavor and the variable holding the
 * current position. Detected from {@code SELECT VERSION()} rather than from the JDBC metadata,
 * which reports MariaDB's compatibility version ("5.5.5-...").
 */
public enum ServerFlavor {
  MYSQL(GtidFlavor.MYSQL56, "@@GLOBAL.gtid_executed"),
  MARIADB(GtidFlavor.MARIADB, "@@GLOBAL.gtid_binlog_pos");

  private final GtidFlavor gtidFlavor;
  private final String positionVariable;

  ServerFlavor(GtidFlavor gtidFlavor, String positionVariable) {
    this.gtidFlavor = gtidFlavor;
    this.positionVariable = positionVariable;
  }

  public GtidFlavor gtidFlavor() {
    return gtidFlavor;
  }

  /** The system variable with the primary's current position, as Vitess reads it for this flavor. */
  String positionVariable() {
    return positionVariable;
  }

  /** The flavor a {@code VERSION()} string names, e.g. {@code 10.11.6-MariaDB-log} or {@code 8.0.36}. */
  public static ServerFlavor fromVersion(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }

  static ServerFlavor detect(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT VERSION()")) {
      rs.next();
      return fromVersion(rs.getString(1));
    }
  }
}
