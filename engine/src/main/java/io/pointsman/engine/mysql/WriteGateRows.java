package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The gate a {@link WriteBarrier}'s triggers ask: {@code <sidecar>.write_gate}, one row per
 * covered table saying whether its writes are denied, and per database one drain row
 * ({@code table_name = ''}) that every gated writer locks in share mode and the flip to denied
 * locks exclusively. Flipping is one fenced transaction per primary whatever the table count; the
 * rows change as DML, so they reach replicas through the binlog in order with the writes.
 */
final class WriteGateRows {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WriteGateRows.class);
  /** The gate's table in the sidecar database; also how a gated trigger is told from an older one. */
  static final String TABLE = "write_gate";
  static final String DDL = """
      (
        db_name varbinary(255) NOT NULL,
        table_name varbinary(255) NOT NULL,
        denied tinyint NOT NULL DEFAULT 0,
        prepared_by varbinary(128) NOT NULL DEFAULT '',
        updated_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
        PRIMARY KEY (db_name, table_name)
      ) ENGINE = InnoDB""";
  /** prepared_by of a table whose triggers a deny installed inside the write window. */
  static final String IN_WINDOW = "";
  /** The drain row's table name: no table is called that. */
  private static final String DRAIN_ROW = "";

  private final MySqlFence fence;

  WriteGateRows(MySqlFence fence) {
    this.fence = fence;
  }

  /**
   * Sets the rows of tables that have no trigger yet to {@code denied} (prepare: allowed, so a row
   * left denied by a table dropped earlier does not deny the new triggers' first write; a deny
   * installing in the window: denied, so each trigger denies from its creation, as the barrier
   * always did), and adds the drain row. Rows of tables whose triggers exist stay as they are.
   * {@code preparedBy} names who installed them: a prepare's owner, or {@link #IN_WINDOW}.
   */
  void install(PrimaryEndpoint endpoint, LockSet locks, Collection<String> withoutTriggers,
      Collection<String> withTriggers, boolean denied, String preparedBy) {
    String db = endpoint.dbName();
    fence.inTransaction(endpoint, locks, "preparing the write gate of " + db, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + table(endpoint)
          + " (db_name, table_name, denied, updated_at) VALUES (?, ?, 0, NOW(6))")) {
        ps.setString(1, db);
        ps.setString(2, DRAIN_ROW);
        ps.addBatch();
        for (String t : withTriggers) {
          ps.setString(1, db);
          ps.setString(2, t);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint)
          + " (db_name, table_name, denied, prepared_by, updated_at) VALUES (?, ?, ?, ?, NOW(6))"
          + " ON DUPLICATE KEY UPDATE denied = ?, prepared_by = ?, updated_at = NOW(6)")) {
        for (String t : withoutTriggers) {
          ps.setString(1, db);
          ps.setString(2, t);
          ps.setInt(3, denied ? 1 : 0);
          ps.setString(4, preparedBy);
          ps.setInt(5, denied ? 1 : 0);
          ps.setString(6, preparedBy);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      return null;
    });
  }

  /**
   * Denies the tables' writes in one fenced transaction. Its first statement takes the drain row
   * exclusively: it waits until every transaction that passed a gated trigger of this database
   * has ended (each holds the row in share mode until then), and a writer arriving meanwhile
   * queues behind it and, once it commits, reads the table's row as denied. So when this returns,
   * every write the gate let through has committed, and every later one fails.
   *
   * @param wait what is left of {@code drainTimeout} (the caller's whole timeout, for the message)
   * @throws PointsmanException DEADLINE_EXCEEDED naming the open transactions when they did not
   *     end within {@code wait} (rounded down to whole seconds, as InnoDB waits); nothing changed
   */
  void deny(PrimaryEndpoint endpoint, LockSet locks, List<String> tables, Duration wait, Duration drainTimeout) {
    String db = endpoint.dbName();
    fence.inTransaction(endpoint, locks, "denying writes to " + tables.size() + " tables of " + db, c -> {
      long before = lockWaitTimeout(c);
      setLockWaitTimeout(c, wait.toSeconds());
      try {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table(endpoint)
            + " SET updated_at = NOW(6) WHERE db_name = ? AND table_name = ?")) {
          ps.setString(1, db);
          ps.setString(2, DRAIN_ROW);
          if (ps.executeUpdate() != 1) {
            throw PointsmanException.unavailable("the write gate of " + db + " on " + endpoint
                + " has no drain row: prepare the barrier first", null);
          }
        } catch (SQLException e) {
          if (e.getErrorCode() == SqlErrors.ER_LOCK_WAIT_TIMEOUT) {
            throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "write barrier on " + db + " of " + endpoint
                + ": transactions using " + String.join(", ", abbreviated(tables)) + " did not end within "
                + drainTimeout + "; open transactions: " + BarrierCatalog.openTransactions(c)
                + ". Nothing was denied; the dormant triggers stay until allow() or a retried deny");
          }
          throw e;
        }
        int changed = setDenied(c, endpoint, tables, true);
        if (changed != tables.size()) {
          throw PointsmanException.unavailable("the write gate of " + db + " on " + endpoint + " lacks rows for some of "
              + abbreviated(tables) + " (removed concurrently?); nothing was denied", null);
        }
        return null;
      } finally {
        setLockWaitTimeout(c, before);
      }
    });
  }

  /**
   * Lets the tables' writes through again (their triggers stay, dormant); one fenced transaction.
   * Only rows that say denied are changed: an allowed row may be share-locked by a transaction
   * that is still open (a writer that passed the gate), and lifting nothing must not wait for it.
   * A denied row waits at most {@code timeout} for transactions whose writes it refused.
   */
  void allow(PrimaryEndpoint endpoint, LockSet locks, List<String> tables, Duration timeout) {
    List<String> denied;
    try (Connection c = fence.pools().connection(endpoint)) {
      fence.ensureSchema(endpoint);
      SortedSet<String> all = deniedRows(c, endpoint);
      denied = tables.stream().filter(all::contains).toList();
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the write gate of " + endpoint.dbName() + " on " + endpoint, e);
    }
    if (denied.isEmpty()) {
      fence.check(endpoint, locks, "allowing writes to " + endpoint.dbName());
      return;
    }
    fence.inTransaction(endpoint, locks, "allowing writes to " + denied.size() + " tables of " + endpoint.dbName(),
        c -> {
          long before = lockWaitTimeout(c);
          setLockWaitTimeout(c, timeout.toSeconds());
          try {
            return setDenied(c, endpoint, denied, false);
          } finally {
            setLockWaitTimeout(c, before);
          }
        });
  }

  /** The tables among {@code tables} whose rows name {@code preparedBy} and do not deny. */
  static SortedSet<String> preparedBy(Connection c, PrimaryEndpoint endpoint, String preparedBy) throws SQLException {
    return TextColumn.read(c, new TreeSet<>(), "SELECT table_name FROM " + table(endpoint)
        + " WHERE db_name = ? AND table_name <> '' AND denied = 0 AND prepared_by = ?", endpoint.dbName(), preparedBy);
  }

  /**
   * Deletes the tables' rows (their triggers are gone, so no transaction holds them), and the
   * drain row once no table row is left. The drain row may still be share-locked by a transaction
   * that wrote a covered table before its trigger was dropped: it is then left (it gates nothing
   * without table rows) rather than waited for.
   */
  void delete(PrimaryEndpoint endpoint, LockSet locks, Collection<String> tables) {
    if (tables.isEmpty()) {
      return;
    }
    String db = endpoint.dbName();
    fence.inTransaction(endpoint, locks, "removing the write gate of " + db, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint)
          + " WHERE db_name = ? AND table_name IN (" + placeholders(tables.size()) + ")")) {
        ps.setString(1, db);
        int i = 2;
        for (String t : tables) {
          ps.setString(i++, t);
        }
        ps.executeUpdate();
      }
      return null;
    });
    try {
      fence.inTransaction(endpoint, locks, "removing the drain row of the write gate of " + db, c -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table(endpoint)
            + " WHERE db_name = ? AND table_name <> ?")) {
          ps.setString(1, db);
          ps.setString(2, DRAIN_ROW);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (rs.getLong(1) > 0) {
              return null;
            }
          }
        }
        long before = lockWaitTimeout(c);
        setLockWaitTimeout(c, 1);
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint)
            + " WHERE db_name = ? AND table_name = ?")) {
          ps.setString(1, db);
          ps.setString(2, DRAIN_ROW);
          ps.executeUpdate();
        } finally {
          setLockWaitTimeout(c, before);
        }
        return null;
      });
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.DEADLINE_EXCEEDED && e.code() != ErrorCode.UNAVAILABLE) {
        throw e;
      }
      log.debug("the drain row of {} on {} is held by an open transaction; left", db, endpoint, e);
    }
  }

  /** The tables whose rows say denied (whether their triggers exist is the catalog's to say). */
  static SortedSet<String> deniedRows(Connection c, PrimaryEndpoint endpoint) throws SQLException {
    return TextColumn.read(c, new TreeSet<>(), "SELECT table_name FROM " + table(endpoint)
        + " WHERE db_name = ? AND table_name <> '' AND denied <> 0", endpoint.dbName());
  }

  private static int setDenied(Connection c, PrimaryEndpoint endpoint, List<String> tables, boolean denied)
      throws SQLException {
    int changed = 0;
    // In slices: one statement per primary for any realistic table list, bounded in size.
    for (int from = 0; from < tables.size(); from += 2000) {
      List<String> slice = tables.subList(from, Math.min(tables.size(), from + 2000));
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + table(endpoint) + " SET denied = ?,"
          + " updated_at = NOW(6) WHERE db_name = ? AND table_name IN (" + placeholders(slice.size()) + ")")) {
        ps.setInt(1, denied ? 1 : 0);
        ps.setString(2, endpoint.dbName());
        int i = 3;
        for (String t : slice) {
          ps.setString(i++, t);
        }
        changed += ps.executeUpdate();
      }
    }
    return changed;
  }

  private static long lockWaitTimeout(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void setLockWaitTimeout(Connection c, long seconds) throws SQLException {
    try (Statement st = c.createStatement()) {
      // MariaDB takes 0 (no wait); MySQL's minimum is 1.
      st.execute("SET SESSION innodb_lock_wait_timeout = " + Math.max(0, seconds));
    }
  }

  private static List<String> abbreviated(List<String> tables) {
    if (tables.size() <= 5) {
      return tables;
    }
    List<String> out = new ArrayList<>(tables.subList(0, 5));
    out.add("... (" + tables.size() + " tables)");
    return out;
  }

  private static String placeholders(int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> "?").collect(Collectors.joining(", "));
  }

  static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), TABLE);
  }
}
