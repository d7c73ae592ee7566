package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.WriteBarrier;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/** The runner's JDBC plumbing: connections with the session every stream connection needs, and quoting. */
final class Sql {
  private Sql() {}

  /**
   * Opens a connection to a MySQL/MariaDB server. Sessions run in UTC so TIMESTAMP values read on
   * one side and written on the other are the same instants.
   */
  static Connection connect(String host, int port, String user, String password) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("sslMode", "DISABLED");
    p.setProperty("allowPublicKeyRetrieval", "true");
    p.setProperty("connectTimeout", "5000");
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("characterEncoding", "UTF-8");
    Connection c;
    try {
      c = DriverManager.getConnection("jdbc:mysql://" + host + ":" + port + "/", p);
    } catch (SQLException e) {
      // Say which server; the SQLSTATE (08xxx for an unreachable one) still classifies the failure.
      throw new SQLException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e.getSQLState(),
          e.getErrorCode(), e);
    }
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION time_zone = '+00:00'");
    } catch (SQLException e) {
      closeQuietly(c, e);
      throw e;
    }
    return c;
  }

  /**
   * Opens a connection for writing into target databases: a stream's session, which write
   * barriers on the primary let through ({@link WriteBarrier#markStreamSession}), without autocommit, and at READ COMMITTED, since every write it
   * makes is keyed and the row guard reads with a lock: gap locks would only make streams writing
   * into one sidecar deadlock each other.
   */
  static Connection connectForApply(String host, int port, String user, String password, String stream)
      throws SQLException {
    Connection c = connect(host, port, user, password);
    try {
      WriteBarrier.markStreamSession(c, stream);
      try (Statement st = c.createStatement()) {
        st.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
      }
      c.setAutoCommit(false);
      return c;
    } catch (SQLException e) {
      closeQuietly(c, e);
      throw e;
    }
  }

  /**
   * Refuses a source whose binlog the runner cannot replay row by row: it needs the binlog on, in
   * ROW format with full row images (statement events would carry changes it cannot filter).
   */
  static void checkSourceBinlog(Connection source, String where) throws SQLException {
    try (Statement st = source.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image")) {
      rs.next();
      if (rs.getInt(1) != 1 || !"ROW".equalsIgnoreCase(rs.getString(2)) || !"FULL".equalsIgnoreCase(rs.getString(3))) {
        throw PointsmanException.failedPrecondition("the source " + where + " has log_bin=" + rs.getString(1)
            + ", binlog_format=" + rs.getString(2) + ", binlog_row_image=" + rs.getString(3)
            + "; streams need log_bin=1, binlog_format=ROW and binlog_row_image=FULL");
      }
    }
  }

  static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** Reads a table's schema from information_schema; NOT_FOUND when the table does not exist. */
  static TableSchema readSchema(Connection c, String db, String table) throws SQLException {
    List<TableSchema.Column> columns = new ArrayList<>();
    forEachRowAbout(c, db, table, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, EXTRA FROM information_schema.COLUMNS"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", rs -> {
          String extra = rs.getString(4) == null ? "" : rs.getString(4).toUpperCase(Locale.ROOT);
          columns.add(new TableSchema.Column(rs.getString(1), rs.getString(2).toLowerCase(Locale.ROOT),
              rs.getString(3).toLowerCase(Locale.ROOT).contains("unsigned"),
              extra.contains("GENERATED") || extra.contains("VIRTUAL") || extra.contains("PERSISTENT")));
        });
    if (columns.isEmpty()) {
      throw PointsmanException.notFound("table " + db + "." + table + " does not exist");
    }
    List<Integer> key = new ArrayList<>();
    forEachRowAbout(c, db, table, "SELECT COLUMN_NAME FROM information_schema.STATISTICS"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX", rs -> {
          for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(rs.getString(1))) {
              key.add(i);
            }
          }
        });
    boolean hasPrimaryKey = !key.isEmpty();
    if (!hasPrimaryKey) {
      for (int i = 0; i < columns.size(); i++) {
        key.add(i);
      }
    }
    return new TableSchema(db, table, columns, key, hasPrimaryKey);
  }

  /** Takes one row of a result set. */
  private interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  /** Runs an information_schema query whose two parameters are the schema and the table, row by row. */
  private static void forEachRowAbout(Connection c, String db, String table, String sql, RowConsumer each)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, db);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          each.accept(rs);
        }
      }
    }
  }


  static void rollbackQuietly(Connection c, Throwable primary) {
    if (c == null) {
      return;
    }
    try {
      if (!c.isClosed() && !c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      primary.addSuppressed(e);
    }
  }

  static void closeQuietly(AutoCloseable c, Throwable primary) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      if (primary != null) {
        primary.addSuppressed(e);
      }
    }
  }
}
