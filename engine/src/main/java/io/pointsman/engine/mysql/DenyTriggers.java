package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The triggers a {@link WriteBarrier} installs: their names and their DDL. One BEFORE trigger per
 * table and DML event. Unless the session is a replication stream's, each reads its database's
 * drain row and its table's row of the gate ({@link WriteGateRows}) under shared row locks in one
 * statement, then, when the table's row names a group and does not deny by itself, the group's
 * row, and fails the statement with SQLSTATE 45000 and a message starting with
 * {@link WriteBarrier#DENIED_MESSAGE_PREFIX} when either says denied: installed, the trigger is
 * dormant until the gate flips. Triggers of older versions read no group row (they are still
 * "gated": their tables are never put in a group) or deny unconditionally ("ungated"); both are
 * still recognised, so that allow removes them. The DDL is identical on MySQL 8 and MariaDB.
 */
final class DenyTriggers {
  static final String PREFIX = "pointsman_deny_";
  private static final int MAX_NAME = 64;
  // Room for PREFIX + <table prefix> + "_" + 8 hex + "_" + 3-letter event within 64 characters.
  private static final int HASHED_TABLE_PREFIX = MAX_NAME - PREFIX.length() - 1 - 8 - 1 - 3;
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.-]{1,80}");

  /** The DML events that are denied, with the suffix of their trigger names. */
  enum Event {
    INSERT("ins"), UPDATE("upd"), DELETE("del");

    private final String suffix;

    Event(String suffix) {
      this.suffix = suffix;
    }
  }

  private DenyTriggers() {}

  /**
   * The trigger name for a table and event: {@code pointsman_deny_<table>_<ins|upd|del>}, or, when
   * that would exceed MySQL's 64 characters, the table name cut short plus a hash of it.
   */
  static String name(String table, Event event) {
    Names.table(table);
    String plain = PREFIX + table + "_" + event.suffix;
    if (plain.length() <= MAX_NAME) {
      return plain;
    }
    return PREFIX + table.substring(0, HASHED_TABLE_PREFIX) + "_" + hash8(table) + "_" + event.suffix;
  }

  /** Whether a trigger found on the server was installed by a write barrier. */
  static boolean isOurs(String triggerName, String actionStatement) {
    return triggerName.startsWith(PREFIX) && actionStatement != null
        && actionStatement.contains(WriteBarrier.DENIED_MESSAGE_PREFIX);
  }

  /** Whether one of our triggers asks the gate (else it is an older, unconditional one). */
  static boolean isGated(String actionStatement) {
    return actionStatement != null && actionStatement.contains(WriteGateRows.TABLE);
  }

  /**
   * The CREATE TRIGGER statement of a gated trigger. The exemption tests a session variable
   * numerically ({@code LENGTH}) so no collation of the writer's session can make the comparison
   * fail, and {@code USER()} (the login user: inside a trigger {@code CURRENT_USER()} is the
   * definer). Exempt sessions read no gate row, so they neither wait for a flip nor hold one up.
   *
   * <p>One locking read of two rows, on purpose: it sees the latest committed gate, never a
   * snapshot the writer's transaction took before the flip, and the shared lock on the database's
   * drain row, held until the writer's transaction ends, is what the flip waits for
   * ({@link WriteGateRows#deny}). Both rows are found through the primary key, in its order, so the
   * drain row ('' sorts first) is locked before the table's row, as the flip locks them: a writer
   * does not wait for a table row while holding what the flip needs (and were the order ever
   * reversed, InnoDB would end the cycle as a deadlock, which the flip retries). The drain row's
   * {@code denied} is always 0 and its group '', so the larger of each is the table's. The group's
   * row is read the same way, after both, as the flip of a group locks it after the drain row.
   */
  static String createStatement(String database, String sidecarDb, String table, Event event,
      Set<String> exemptUsers) {
    StringBuilder condition = new StringBuilder("IFNULL(LENGTH(@" + WriteBarrier.STREAM_SESSION_VARIABLE + "), 0) = 0");
    if (!exemptUsers.isEmpty()) {
      condition.append(" AND SUBSTRING_INDEX(USER(), '@', 1) NOT IN (")
          .append(exemptUsers.stream().sorted().map(u -> "'" + checkUser(u) + "'").collect(Collectors.joining(", ")))
          .append(')');
    }
    String gate = SqlIdentifiers.qualified(sidecarDb, WriteGateRows.TABLE);
    String groups = SqlIdentifiers.qualified(sidecarDb, WriteGateRows.GROUPS_TABLE);
    // Names passed Names' validation (letters, digits, '_', '$'): safe inside a string literal.
    String dbLiteral = "'" + Names.database(database) + "'";
    return "CREATE TRIGGER " + SqlIdentifiers.database(database) + "." + quote(name(table, event))
        + " BEFORE " + event.name() + " ON " + SqlIdentifiers.qualified(database, table) + " FOR EACH ROW"
        + " BEGIN DECLARE pointsman_gate INT DEFAULT 0; DECLARE pointsman_group VARBINARY(64) DEFAULT '';"
        + " IF " + condition + " THEN"
        + " SELECT COALESCE(MAX(denied), 0), COALESCE(MAX(gate_group), '') INTO pointsman_gate, pointsman_group FROM "
        + gate + " WHERE db_name = " + dbLiteral + " AND table_name IN ('', '" + Names.table(table) + "')"
        + " LOCK IN SHARE MODE;"
        + " IF pointsman_gate = 0 AND pointsman_group <> '' THEN"
        + " SELECT COALESCE(MAX(denied), 0) INTO pointsman_gate FROM " + groups + " WHERE db_name = " + dbLiteral
        + " AND group_name = pointsman_group LOCK IN SHARE MODE;"
        + " END IF;"
        + " IF pointsman_gate <> 0 THEN"
        + " SIGNAL SQLSTATE '" + WriteBarrier.DENIED_SQLSTATE + "' SET MESSAGE_TEXT = '"
        + WriteBarrier.DENIED_MESSAGE_PREFIX + " on table " + table + "';"
        + " END IF; END IF; END";
  }

  /** The older, unconditional trigger (kept for tests of an upgrade from it). */
  static String ungatedCreateStatement(String database, String table, Event event) {
    return "CREATE TRIGGER " + SqlIdentifiers.database(database) + "." + quote(name(table, event))
        + " BEFORE " + event.name() + " ON " + SqlIdentifiers.qualified(database, table) + " FOR EACH ROW"
        + " BEGIN IF IFNULL(LENGTH(@" + WriteBarrier.STREAM_SESSION_VARIABLE + "), 0) = 0 THEN"
        + " SIGNAL SQLSTATE '" + WriteBarrier.DENIED_SQLSTATE + "' SET MESSAGE_TEXT = '"
        + WriteBarrier.DENIED_MESSAGE_PREFIX + " on table " + table + "';"
        + " END IF; END";
  }

  static String dropStatement(String database, String triggerName) {
    return "DROP TRIGGER IF EXISTS " + SqlIdentifiers.database(database) + "." + quote(triggerName);
  }

  /** Validates a MySQL user name that will sit inside a string literal of the trigger. */
  static String checkUser(String user) {
    if (user == null || !USER.matcher(user).matches()) {
      throw PointsmanException.invalidArgument("exempt MySQL user name '" + user
          + "' must be 1-80 letters, digits, '_', '.' or '-'");
    }
    return user;
  }

  // Our own generated names follow the table-name rules, so the same validation applies.
  private static String quote(String triggerName) {
    return SqlIdentifiers.table(triggerName);
  }

  private static String hash8(String table) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(table.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
