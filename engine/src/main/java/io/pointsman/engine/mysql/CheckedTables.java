package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link WriteBarrier} last saw of its triggers, so the write window need not read
 * {@code information_schema.TRIGGERS} (which opens every table's trigger file: some 50 ms for 3000
 * triggers on an idle server, several times that under load). {@code <sidecar>.write_gate_checked}
 * keeps, per table whose three gated triggers were seen complete, the table's InnoDB table id then.
 * A table dropped and created again, renamed over, or rebuilt has another id, and the barrier reads
 * the catalog again; every DROP TRIGGER of the barrier forgets the table first. A trigger dropped
 * by hand, outside pointsman, is not noticed this way.
 */
final class CheckedTables {
  private static final Logger log = LoggerFactory.getLogger(CheckedTables.class);
  static final String TABLE = "write_gate_checked";
  static final String DDL = """
      (
        db_name varbinary(255) NOT NULL,
        table_name varbinary(255) NOT NULL,
        table_id bigint NOT NULL,
        checked_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
        PRIMARY KEY (db_name, table_name)
      ) ENGINE = InnoDB""";

  private CheckedTables() {}

  /**
   * The InnoDB table ids of the database's tables, by name; empty when the server does not say
   * (then every check reads the catalog). Names InnoDB encodes (not letters, digits, '_') are missed.
   */
  static Map<String, Long> tableIds(Connection c, String db) {
    for (String view : List.of("INNODB_SYS_TABLES", "INNODB_TABLES")) { // MariaDB, MySQL 8
      try (PreparedStatement ps = c.prepareStatement("SELECT NAME, TABLE_ID FROM information_schema." + view
          + " WHERE LEFT(NAME, ?) = ?")) {
        ps.setInt(1, db.length() + 1);
        ps.setString(2, db + "/");
        Map<String, Long> ids = new HashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ids.put(rs.getString(1).substring(db.length() + 1), rs.getLong(2));
          }
        }
        return ids;
      } catch (SQLException e) {
        log.debug("no table ids from information_schema.{}", view, e);
      }
    }
    return Map.of();
  }

  /** Whether every table was seen with its triggers complete under the id it has now. */
  static boolean allChecked(Connection c, PrimaryEndpoint endpoint, Collection<String> tables, Map<String, Long> ids)
      throws SQLException {
    if (tables.isEmpty() || ids.isEmpty()) {
      return false;
    }
    Map<String, Long> seen = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT table_name, table_id FROM " + table(endpoint)
        + " WHERE db_name = ?")) {
      ps.setString(1, endpoint.dbName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seen.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    for (String t : tables) {
      Long now = ids.get(t);
      if (now == null || !now.equals(seen.get(t))) {
        return false;
      }
    }
    return true;
  }

  /** Records the tables as seen complete under their current ids. */
  static void record(Connection c, PrimaryEndpoint endpoint, Collection<String> tables, Map<String, Long> ids)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint)
        + " (db_name, table_name, table_id, checked_at) VALUES (?, ?, ?, NOW(6))"
        + " ON DUPLICATE KEY UPDATE table_id = ?, checked_at = NOW(6)")) {
      int n = 0;
      for (String t : tables) {
        Long id = ids.get(t);
        if (id == null) {
          continue;
        }
        ps.setString(1, endpoint.dbName());
        ps.setString(2, t);
        ps.setLong(3, id);
        ps.setLong(4, id);
        ps.addBatch();
        n++;
      }
      if (n > 0) {
        ps.executeBatch();
      }
    }
  }

  /** Forgets the tables, before any of their triggers is dropped. */
  static void forget(Connection c, PrimaryEndpoint endpoint, Collection<String> tables) throws SQLException {
    if (tables.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint) + " WHERE db_name = ?"
        + " AND table_name IN (" + String.join(", ", java.util.Collections.nCopies(tables.size(), "?")) + ")")) {
      ps.setString(1, endpoint.dbName());
      int i = 2;
      for (String t : tables) {
        ps.setString(i++, t);
      }
      ps.executeUpdate();
    }
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), TABLE);
  }
}
