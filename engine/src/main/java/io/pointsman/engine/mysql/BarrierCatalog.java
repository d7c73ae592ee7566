package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a {@link WriteBarrier} reads from the server's catalog: tables, its triggers, open transactions. */
final class BarrierCatalog {
  private static final Logger log = LoggerFactory.getLogger(BarrierCatalog.class);

  private BarrierCatalog() {}

  /** The base tables of a database (MariaDB's system-versioned tables included). */
  static SortedSet<String> baseTables(Connection c, String db) throws SQLException {
    return TextColumn.read(c, new TreeSet<>(), "SELECT TABLE_NAME FROM information_schema.TABLES"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')", db);
  }

  /** Whether the database exists at all (an empty one has no tables either). */
  static boolean databaseExists(Connection c, String db) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?")) {
      ps.setString(1, db);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** One of our triggers: its table, and whether it asks the gate (else an older, unconditional one). */
  record Trigger(String table, boolean gated) {}

  /** Barrier triggers of the database: trigger name → its table and kind. */
  static Map<String, Trigger> barrierTriggers(Connection c, String db) throws SQLException {
    Map<String, Trigger> ours = new TreeMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_STATEMENT"
        + " FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?")) {
      ps.setString(1, db);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (DenyTriggers.isOurs(rs.getString(1), rs.getString(3))) {
            ours.put(rs.getString(1), new Trigger(rs.getString(2), DenyTriggers.isGated(rs.getString(3))));
          }
        }
      }
    }
    return ours;
  }

  /** Best effort: the oldest open transactions on the server, so an operator can find the blocker. */
  static String openTransactions(Connection c) {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
        "SELECT t.trx_mysql_thread_id, t.trx_started, p.USER, p.HOST, p.COMMAND, p.TIME"
            + " FROM information_schema.INNODB_TRX t LEFT JOIN information_schema.PROCESSLIST p"
            + " ON p.ID = t.trx_mysql_thread_id WHERE t.trx_mysql_thread_id <> CONNECTION_ID()"
            + " ORDER BY t.trx_started LIMIT 5")) {
      List<String> found = new ArrayList<>();
      while (rs.next()) {
        found.add("thread " + rs.getLong(1) + " of " + rs.getString(3) + "@" + rs.getString(4) + " since "
            + rs.getString(2) + " (" + rs.getString(5) + " for " + rs.getLong(6) + " s)");
      }
      return String.join("; ", found);
    } catch (SQLException e) {
      log.debug("could not list open transactions", e);
      return "";
    }
  }
}
