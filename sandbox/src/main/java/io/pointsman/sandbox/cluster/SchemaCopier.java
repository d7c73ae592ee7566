package io.pointsman.sandbox.cluster;

import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BaseTables;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Copies table definitions from a source primary to a target primary, as Vitess's materializer
 * (MoveTables) and CopySchemaShard (Reshard) do: {@code SHOW CREATE TABLE} on the source, created
 * on the target only where the table is missing.
 */
final class SchemaCopier {
  private static final Pattern AUTO_INCREMENT_OPTION = Pattern.compile("(?i)\\s+AUTO_INCREMENT\\s*=\\s*\\d+");
  private static final Pattern AUTO_INCREMENT_ATTRIBUTE = Pattern.compile("(?i)\\s+AUTO_INCREMENT\\b");
  private static final int ER_NO_SUCH_TABLE = 1146;

  private SchemaCopier() {}


  /** {@code CREATE TABLE} statements of the given tables, in the given order. */
  static Map<String, String> createStatements(Connection c, String db, List<String> tables) throws SQLException {
    Map<String, String> ddl = new LinkedHashMap<>();
    try (Statement s = c.createStatement()) {
      for (String t : tables) {
        try (ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + qualified(db, t))) {
          rs.next();
          ddl.put(t, rs.getString(2));
        }
      }
    }
    return ddl;
  }

  /**
   * Creates the tables missing in {@code db} on the target from the statements given.
   *
   * @return the tables it created
   */
  static List<String> createMissing(Connection target, String db, Map<String, String> ddl) throws SQLException {
    List<String> existing = BaseTables.of(target, db);
    List<String> created = new ArrayList<>();
    String previousCatalog = target.getCatalog();
    // SHOW CREATE TABLE names the table without its database, so the statement runs inside it.
    target.setCatalog(Names.database(db));
    try (Statement s = target.createStatement()) {
      for (var e : ddl.entrySet()) {
        if (!existing.contains(e.getKey())) {
          s.execute(e.getValue());
          created.add(e.getKey());
        }
      }
    } finally {
      if (previousCatalog != null && !previousCatalog.isEmpty()) {
        target.setCatalog(previousCatalog);
      }
    }
    return created;
  }

  static void createDatabaseIfMissing(Connection c, String db) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS `" + Names.database(db) + "`");
    }
  }

  /** Whether the table holds at least one row; a missing table counts as empty. */
  static boolean hasRows(Connection c, String db, String table) throws SQLException {
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT 1 FROM " + qualified(db, table) + " LIMIT 1")) {
      return rs.next();
    } catch (SQLException e) {
      if (e.getErrorCode() == ER_NO_SUCH_TABLE) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The statement without AUTO_INCREMENT: Vitess removes it from tables MoveTables creates in a
   * sharded keyspace, where a per-shard counter would hand out colliding ids.
   */
  static String withoutAutoIncrement(String createTable) {
    String s = AUTO_INCREMENT_OPTION.matcher(createTable).replaceAll("");
    return AUTO_INCREMENT_ATTRIBUTE.matcher(s).replaceAll("");
  }

  static String qualified(String db, String table) {
    return "`" + Names.database(db) + "`.`" + Names.table(table) + "`";
  }
}
