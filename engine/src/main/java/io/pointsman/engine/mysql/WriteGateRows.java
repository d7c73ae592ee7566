package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.trace.TimingTrace;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * The gate a {@link WriteBarrier}'s triggers ask: {@code <sidecar>.write_gate}, one row per
 * covered table saying whether its writes are denied, and per database one drain row
 * ({@code table_name = ''}) that every gated writer locks in share mode and the flip to denied
 * locks exclusively. Flipping is one fenced transaction per primary whatever the table count; the
 * rows change as DML, so they reach replicas through the binlog in order with the writes.
 *
 * <h2>Groups</h2>
 * The tables a prepare gives triggers are also put in a group, {@code <sidecar>.write_gate_group}:
 * one row per database and set of tables ({@link #groupOf}), which their triggers read after their
 * own row. A flip of exactly that set then changes that one row instead of a row per table: a
 * thousand tables cost what ten do. A table is put in a group only when its row is created with its
 * triggers, and only in a group that does not deny (a prepare installs dormant); it stays in it
 * until its row is deleted. So a group's tables are always some of the tables it was named for,
 * and a flip counts them under lock: when they are not all of the set (another scope prepared some
 * first, or their triggers are of an older kind), it changes a row per table, as before.
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
        gate_group varbinary(64) NOT NULL DEFAULT '',
        prepared_by varbinary(128) NOT NULL DEFAULT '',
        updated_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
        PRIMARY KEY (db_name, table_name)
      ) ENGINE = InnoDB""";
  /** The column a table's group is named in, added to write_gates created before groups (SidecarSchema). */
  static final String GROUP_COLUMN = "gate_group varbinary(64) NOT NULL DEFAULT '' AFTER denied";
  /** The groups' table in the sidecar database; a trigger that reads it is of the grouped kind. */
  static final String GROUPS_TABLE = "write_gate_group";
  static final String GROUPS_DDL = """
      (
        db_name varbinary(255) NOT NULL,
        group_name varbinary(64) NOT NULL,
        denied tinyint NOT NULL DEFAULT 0,
        updated_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
        PRIMARY KEY (db_name, group_name)
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
   * {@code preparedBy} names who installed them: a prepare's owner, or {@link #IN_WINDOW}. With a
   * {@code group} ({@link #groupOf} of the prepare's tables), the tables without triggers are put
   * in it, unless it denies now (then in none: a prepare installs dormant).
   */
  void install(PrimaryEndpoint endpoint, LockSet locks, Collection<String> withoutTriggers,
      Collection<String> withTriggers, boolean denied, String preparedBy, String group) {
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
      String joined = group == null || withoutTriggers.isEmpty() ? "" : joinGroup(c, endpoint, group);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint)
          + " (db_name, table_name, denied, gate_group, prepared_by, updated_at) VALUES (?, ?, ?, ?, ?, NOW(6))"
          + " ON DUPLICATE KEY UPDATE denied = ?, gate_group = ?, prepared_by = ?, updated_at = NOW(6)")) {
        for (String t : withoutTriggers) {
          ps.setString(1, db);
          ps.setString(2, t);
          ps.setInt(3, denied ? 1 : 0);
          ps.setString(4, joined);
          ps.setString(5, preparedBy);
          ps.setInt(6, denied ? 1 : 0);
          ps.setString(7, joined);
          ps.setString(8, preparedBy);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      return null;
    });
  }

  /**
   * The group's row, created allowed if missing and read under a shared lock (a flip of it waits
   * until the rows joining it are committed): the group's name, or '' when it denies now.
   */
  private static String joinGroup(Connection c, PrimaryEndpoint endpoint, String group) throws SQLException {
    String db = endpoint.dbName();
    try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + groups(endpoint)
        + " (db_name, group_name, denied, updated_at) VALUES (?, ?, 0, NOW(6))")) {
      ps.setString(1, db);
      ps.setString(2, group);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT denied FROM " + groups(endpoint)
        + " WHERE db_name = ? AND group_name = ? LOCK IN SHARE MODE")) {
      ps.setString(1, db);
      ps.setString(2, group);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getInt(1) == 0 ? group : "";
      }
    }
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
    long started = TimingTrace.start();
    AtomicBoolean byGroup = new AtomicBoolean();
    fence.inTransaction(endpoint, locks, "denying writes to " + tables.size() + " tables of " + db, c -> {
      try (LockWait ignored = LockWait.set(c, wait.toSeconds())) {
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
                + ": transactions using " + Shown.joined(tables) + " did not end within "
                + drainTimeout + "; open transactions: " + BarrierCatalog.openTransactions(c)
                + ". Nothing was denied; the dormant triggers stay until allow() or a retried deny");
          }
          throw e;
        }
        if (denyGroup(c, endpoint, groupOf(tables), tables.size())) {
          byGroup.set(true);
          return null;
        }
        int changed = setDenied(c, endpoint, tables, true);
        if (changed != tables.size()) {
          throw PointsmanException.unavailable("the write gate of " + db + " on " + endpoint + " lacks rows for some of "
              + Shown.list(tables) + " (removed concurrently?); nothing was denied", null);
        }
        return null;
      }
    });
    TimingTrace.took("gate.deny", started, () -> tables.size() + " tables of " + db + " on " + endpoint
        + (byGroup.get() ? ", by their group's row" : ", row by row"));
  }

  /**
   * Denies the group's row, when the group's tables are all {@code tables} of the set it is named
   * for (counted under shared locks, so none leaves it before this commits); false, with nothing
   * changed, when it has no row or fewer tables. Runs after the drain row is taken: no gated writer
   * holds the group's row then.
   */
  private static boolean denyGroup(Connection c, PrimaryEndpoint endpoint, String group, int tables)
      throws SQLException {
    String db = endpoint.dbName();
    try (PreparedStatement ps = c.prepareStatement("SELECT denied FROM " + groups(endpoint)
        + " WHERE db_name = ? AND group_name = ? FOR UPDATE")) {
      ps.setString(1, db);
      ps.setString(2, group);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table(endpoint)
        + " WHERE db_name = ? AND gate_group = ? LOCK IN SHARE MODE")) {
      ps.setString(1, db);
      ps.setString(2, group);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getLong(1) != tables) {
          return false;
        }
      }
    }
    setGroupDenied(c, endpoint, List.of(group), true);
    return true;
  }

  private static void setGroupDenied(Connection c, PrimaryEndpoint endpoint, Collection<String> groups, boolean denied)
      throws SQLException {
    if (groups.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + groups(endpoint) + " SET denied = ?,"
        + " updated_at = NOW(6) WHERE db_name = ? AND group_name IN (" + placeholders(groups.size()) + ")")) {
      ps.setInt(1, denied ? 1 : 0);
      ps.setString(2, endpoint.dbName());
      int i = 3;
      for (String g : groups) {
        ps.setString(i++, g);
      }
      ps.executeUpdate();
    }
  }

  /**
   * Lets the tables' writes through again (their triggers stay, dormant); one fenced transaction.
   * Only rows that say denied are changed: an allowed row may be share-locked by a transaction
   * that is still open (a writer that passed the gate), and lifting nothing must not wait for it.
   * A denied row waits at most {@code timeout} for transactions whose writes it refused.
   */
  void allow(PrimaryEndpoint endpoint, LockSet locks, List<String> tables, Duration timeout) {
    String group = groupOf(tables);
    boolean groupDenied;
    List<String> denied;
    Set<String> lift = new TreeSet<>();
    List<String> leave = new ArrayList<>();
    try (Connection c = fence.pools().connection(endpoint)) {
      fence.ensureSchema(endpoint);
      Denying now = denying(c, endpoint, group);
      groupDenied = now.groupDenies();
      denied = tables.stream().filter(now.tablesByRow()::contains).toList();
      // Tables held by other groups that deny: a group all of whose tables are lifted is lifted
      // itself; from any other, the lifted tables leave (the rest of it stays denied).
      Set<String> lifted = new HashSet<>(tables);
      now.otherGroups().forEach((g, members) -> {
        if (lifted.containsAll(members)) {
          lift.add(g);
        } else {
          members.stream().filter(lifted::contains).forEach(leave::add);
        }
      });
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the write gate of " + endpoint.dbName() + " on " + endpoint, e);
    }
    if (groupDenied) {
      lift.add(group);
    }
    if (denied.isEmpty() && lift.isEmpty() && leave.isEmpty()) {
      fence.check(endpoint, locks, "allowing writes to " + endpoint.dbName());
      return;
    }
    long started = TimingTrace.start();
    fence.inTransaction(endpoint, locks, "allowing writes to " + tables.size() + " tables of " + endpoint.dbName(),
        c -> {
          try (LockWait ignored = LockWait.set(c, timeout.toSeconds())) {
            setGroupDenied(c, endpoint, lift, false);
            leaveGroups(c, endpoint, leave);
            return setDenied(c, endpoint, denied, false);
          }
        });
    TimingTrace.took("gate.allow", started, () -> tables.size() + " tables of " + endpoint.dbName() + " on " + endpoint
        + ": " + lift.size() + " group row(s), " + denied.size() + " table row(s), " + leave.size() + " leaving a group");
  }

  /**
   * What denies on a primary, as allow must know it before it changes anything.
   *
   * @param groupDenies whether the set's own group has a row that denies
   * @param tablesByRow the tables whose own rows say denied, whatever their groups say
   * @param otherGroups the groups other than the set's that deny, each with its tables
   */
  private record Denying(boolean groupDenies, Set<String> tablesByRow, Map<String, List<String>> otherGroups) {}

  /**
   * Reads {@link Denying} in one statement (read as committed, without a lock): allow runs inside
   * the write window, where each round trip to the primary counts.
   */
  private static Denying denying(Connection c, PrimaryEndpoint endpoint, String group) throws SQLException {
    boolean groupDenies = false;
    Set<String> byRow = new HashSet<>();
    Map<String, List<String>> others = new TreeMap<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT 'group', group_name, '' FROM " + groups(endpoint) + " WHERE db_name = ? AND group_name = ? AND denied <> 0"
            + " UNION ALL SELECT 'row', table_name, '' FROM " + table(endpoint)
            + " WHERE db_name = ? AND table_name <> '' AND denied <> 0"
            + " UNION ALL SELECT 'other', w.gate_group, w.table_name FROM " + table(endpoint) + " w JOIN "
            + groups(endpoint) + " g ON g.db_name = w.db_name AND g.group_name = w.gate_group"
            + " WHERE w.db_name = ? AND g.denied <> 0 AND w.gate_group <> ?")) {
      ps.setString(1, endpoint.dbName());
      ps.setString(2, group);
      ps.setString(3, endpoint.dbName());
      ps.setString(4, endpoint.dbName());
      ps.setString(5, group);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          switch (rs.getString(1)) {
            case "group" -> groupDenies = true;
            case "row" -> byRow.add(rs.getString(2));
            default -> others.computeIfAbsent(rs.getString(2), g -> new ArrayList<>()).add(rs.getString(3));
          }
        }
      }
    }
    return new Denying(groupDenies, byRow, others);
  }

  /** Takes the tables out of their groups: their own rows decide for them again. */
  private static void leaveGroups(Connection c, PrimaryEndpoint endpoint, List<String> tables) throws SQLException {
    if (tables.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + table(endpoint) + " SET gate_group = '',"
        + " updated_at = NOW(6) WHERE db_name = ? AND table_name IN (" + placeholders(tables.size()) + ")")) {
      ps.setString(1, endpoint.dbName());
      int i = 2;
      for (String t : tables) {
        ps.setString(i++, t);
      }
      ps.executeUpdate();
    }
  }

  /** The tables among {@code tables} whose rows name {@code preparedBy} and do not deny. */
  static SortedSet<String> preparedBy(Connection c, PrimaryEndpoint endpoint, String preparedBy) throws SQLException {
    return TextColumn.read(c, new TreeSet<>(), "SELECT w.table_name FROM " + withGroups(endpoint)
        + " WHERE w.db_name = ? AND w.table_name <> '' AND w.denied = 0 AND COALESCE(g.denied, 0) = 0"
        + " AND w.prepared_by = ?", endpoint.dbName(), preparedBy);
  }

  /**
   * Deletes the tables' rows (their triggers are gone, so no transaction holds them), the groups
   * left without a table, and the drain row once no table row is left. The drain row and a group's
   * row may still be share-locked by a transaction that wrote a covered table before its trigger
   * was dropped: they are then left (they gate nothing without table rows) rather than waited for.
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
      fence.inTransaction(endpoint, locks, "removing the drain row and empty groups of the write gate of " + db, c -> {
        try (LockWait ignored = LockWait.set(c, 1)) {
          try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + groups(endpoint)
              + " WHERE db_name = ? AND NOT EXISTS (SELECT 1 FROM " + table(endpoint) + " w"
              + " WHERE w.db_name = " + groups(endpoint) + ".db_name AND w.gate_group = "
              + groups(endpoint) + ".group_name)")) {
            ps.setString(1, db);
            ps.executeUpdate();
          }
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
          try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint)
              + " WHERE db_name = ? AND table_name = ?")) {
            ps.setString(1, db);
            ps.setString(2, DRAIN_ROW);
            ps.executeUpdate();
          }
          return null;
        }
      });
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.DEADLINE_EXCEEDED && e.code() != ErrorCode.UNAVAILABLE) {
        throw e;
      }
      log.debug("the drain row or an empty group of {} on {} is held by an open transaction; left", db, endpoint, e);
    }
  }

  /**
   * The tables whose rows, or whose groups' rows, say denied (whether their triggers exist is the
   * catalog's to say).
   */
  static SortedSet<String> deniedRows(Connection c, PrimaryEndpoint endpoint) throws SQLException {
    return TextColumn.read(c, new TreeSet<>(), "SELECT w.table_name FROM " + withGroups(endpoint)
        + " WHERE w.db_name = ? AND w.table_name <> '' AND (w.denied <> 0 OR COALESCE(g.denied, 0) <> 0)",
        endpoint.dbName());
  }

  /** The gate's rows as {@code w}, each with its group's row as {@code g} (NULLs when in none). */
  private static String withGroups(PrimaryEndpoint endpoint) {
    return table(endpoint) + " w LEFT JOIN " + groups(endpoint)
        + " g ON g.db_name = w.db_name AND g.group_name = w.gate_group";
  }

  /**
   * The group of a set of tables: a name that only that set has (a hash of its sorted names),
   * so that a flip of the set finds it without reading a row per table.
   */
  static String groupOf(Collection<String> tables) {
    String joined = String.join(",", new TreeSet<>(tables));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(joined.getBytes(StandardCharsets.UTF_8));
      return "g" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
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

  /**
   * The session's innodb_lock_wait_timeout set for the waits of a gate change, and put back as it
   * was on close. The value it had is kept in a session variable, not read first: one round trip
   * each way instead of three, as deny and allow run inside the write window.
   */
  static final class LockWait implements AutoCloseable {
    private final Connection c;

    private LockWait(Connection c) {
      this.c = c;
    }

    static LockWait set(Connection c, long seconds) throws SQLException {
      try (Statement st = c.createStatement()) {
        // MariaDB takes 0 (no wait); MySQL's minimum is 1.
        st.execute("SET @pointsman_lock_wait_before = @@SESSION.innodb_lock_wait_timeout,"
            + " SESSION innodb_lock_wait_timeout = " + Math.max(0, seconds));
      }
      return new LockWait(c);
    }

    @Override
    public void close() throws SQLException {
      try (Statement st = c.createStatement()) {
        st.execute("SET SESSION innodb_lock_wait_timeout = @pointsman_lock_wait_before");
      }
    }
  }

  private static String placeholders(int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> "?").collect(Collectors.joining(", "));
  }

  static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), TABLE);
  }

  private static String groups(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), GROUPS_TABLE);
  }
}
