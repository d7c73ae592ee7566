package io.pointsman.engine.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the sidecar database and its tables on a primary, idempotently: Vitess's
 * {@code vreplication}, {@code resharding_journal} and {@code copy_state} (docs/architecture.md §6.2; here
 * {@code source} and the journal {@code val} hold JSON), plus pointsman's {@code lock_fence}.
 *
 * <p>Only missing objects are created, and the DDL is binlogged on purpose: replicas must have the
 * tables before the rows written to them replicate. Each server and sidecar database is checked
 * once per process.
 */
public final class SidecarSchema {
  private static final Logger log = LoggerFactory.getLogger(SidecarSchema.class);

  /** Table name → CREATE body after {@code CREATE TABLE IF NOT EXISTS <db>.<table>}. */
  private static final Map<String, String> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put("vreplication", """
        (
          id int NOT NULL AUTO_INCREMENT,
          workflow varbinary(1000) DEFAULT NULL,
          source mediumblob NOT NULL,
          pos varbinary(10000) NOT NULL,
          stop_pos varbinary(10000) DEFAULT NULL,
          max_tps bigint NOT NULL,
          max_replication_lag bigint NOT NULL,
          cell varbinary(1000) DEFAULT NULL,
          tablet_types varbinary(100) DEFAULT NULL,
          time_updated bigint NOT NULL,
          transaction_timestamp bigint NOT NULL,
          state varbinary(100) NOT NULL,
          message varbinary(1000) DEFAULT NULL,
          db_name varbinary(255) NOT NULL,
          rows_copied bigint NOT NULL DEFAULT '0',
          tags varbinary(1024) NOT NULL DEFAULT '',
          time_heartbeat bigint NOT NULL DEFAULT '0',
          workflow_type int NOT NULL DEFAULT '0',
          time_throttled bigint NOT NULL DEFAULT '0',
          component_throttled varchar(255) NOT NULL DEFAULT '',
          reason_throttled varchar(512) NOT NULL DEFAULT '',
          workflow_sub_type int NOT NULL DEFAULT '0',
          defer_secondary_keys tinyint(1) NOT NULL DEFAULT '0',
          options json NOT NULL,
          PRIMARY KEY (id),
          KEY workflow_idx (workflow(64))
        ) ENGINE = InnoDB""");
    TABLES.put("resharding_journal", """
        (
          id bigint NOT NULL,
          db_name varbinary(255) DEFAULT NULL,
          val mediumblob,
          PRIMARY KEY (id)
        ) ENGINE = InnoDB CHARSET = utf8mb4""");
    TABLES.put("copy_state", """
        (
          id bigint unsigned NOT NULL AUTO_INCREMENT,
          vrepl_id int NOT NULL,
          table_name varbinary(128) NOT NULL,
          lastpk varbinary(2000) DEFAULT NULL,
          PRIMARY KEY (id),
          KEY vrepl_id (vrepl_id, table_name)
        ) ENGINE = InnoDB CHARSET = utf8mb4""");
    // pointsman's own: when each journal was written (JournalTimes, Complete's journal grace).
    TABLES.put(JournalTimes.TABLE, JournalTimes.DDL);
    // pointsman's own: the gate the write barrier's dormant triggers ask (WriteGateRows).
    TABLES.put(WriteGateRows.TABLE, WriteGateRows.DDL);
    // pointsman's own: the groups of tables a flip changes with one row (WriteGateRows).
    TABLES.put(WriteGateRows.GROUPS_TABLE, WriteGateRows.GROUPS_DDL);
    // pointsman's own: which tables' barrier triggers were seen complete, by InnoDB table id (CheckedTables).
    TABLES.put(CheckedTables.TABLE, CheckedTables.DDL);
    // pointsman's own: the highest fencing token seen per lock (docs/locks.md §8, MySqlFence).
    TABLES.put("lock_fence", """
        (
          resource varbinary(512) NOT NULL,
          token bigint NOT NULL,
          epoch bigint NOT NULL DEFAULT 0,
          updated_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
          PRIMARY KEY (resource)
        ) ENGINE = InnoDB""");
  }

  private final ConnectionPools pools;
  private final Set<String> ensured = ConcurrentHashMap.newKeySet();

  public SidecarSchema(ConnectionPools pools) {
    this.pools = Objects.requireNonNull(pools, "pools");
  }

  /** The names of the sidecar tables this class manages. */
  public static Set<String> tables() {
    return TABLES.keySet();
  }

  /**
   * Makes sure the endpoint's sidecar database and tables exist. Cheap after the first call for a
   * server and sidecar database; safe to run concurrently from several workers.
   */
  public void ensure(PrimaryEndpoint endpoint) {
    String key = endpoint.address() + "/" + endpoint.sidecarDb();
    if (ensured.contains(key)) {
      return;
    }
    try (Connection c = pools.connection(endpoint)) {
      Set<String> present = existingTables(c, endpoint.sidecarDb());
      if (!present.containsAll(TABLES.keySet())) {
        create(c, endpoint, present);
      }
      if (present.contains("lock_fence")) {
        addColumn(c, endpoint, "lock_fence", "epoch", "epoch bigint NOT NULL DEFAULT 0 AFTER token");
      }
      if (present.contains(WriteGateRows.TABLE)) {
        addColumn(c, endpoint, WriteGateRows.TABLE, "gate_group", WriteGateRows.GROUP_COLUMN);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("creating the sidecar schema " + endpoint.sidecarDb() + " on " + endpoint, e);
    }
    ensured.add(key);
  }

  private static Set<String> existingTables(Connection c, String db) throws SQLException {
    return TextColumn.read(c, new HashSet<>(),
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", db);
  }

  /**
   * A column added since the table was first created here, added to it now: lock_fence's epoch
   * (MySqlFence; rows without one read as epoch 0, below every stamped execution) and write_gate's
   * group (WriteGateRows; rows without one are in no group). Checked through the catalog, since
   * MySQL has no ADD COLUMN IF NOT EXISTS; two workers adding it at once: the loser's duplicate
   * column is fine.
   */
  private static void addColumn(Connection c, PrimaryEndpoint endpoint, String table, String column,
      String definition) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM information_schema.COLUMNS"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
      ps.setString(1, endpoint.sidecarDb());
      ps.setString(2, table);
      ps.setString(3, column);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return;
        }
      }
    }
    log.info("adding the {} column to {}.{} on {}", column, endpoint.sidecarDb(), table, endpoint);
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE " + SqlIdentifiers.qualified(endpoint.sidecarDb(), table) + " ADD COLUMN " + definition);
    } catch (SQLException e) {
      if (e.getErrorCode() != 1060) { // ER_DUP_FIELDNAME: another worker added it first
        throw e;
      }
    }
  }

  private static void create(Connection c, PrimaryEndpoint endpoint, Set<String> present) throws SQLException {
    String db = SqlIdentifiers.database(endpoint.sidecarDb());
    try (Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE IF NOT EXISTS " + db);
      for (Map.Entry<String, String> t : TABLES.entrySet()) {
        if (!present.contains(t.getKey())) {
          log.info("creating sidecar table {}.{} on {}", endpoint.sidecarDb(), t.getKey(), endpoint);
          st.execute("CREATE TABLE IF NOT EXISTS " + db + "." + SqlIdentifiers.table(t.getKey()) + " " + t.getValue());
        }
      }
    }
  }
}
