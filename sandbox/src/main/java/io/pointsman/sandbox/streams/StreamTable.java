package io.pointsman.sandbox.streams;

import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.VReplicationStreams;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The statements the runner issues on a primary's {@code vreplication} and {@code copy_state}
 * tables (Vitess's column names; times are unix seconds). Statements that must happen atomically
 * with applied rows take the caller's connection and never commit themselves.
 */
final class StreamTable {
  /** Vitess truncates {@code message} to this length; here in bytes, as the column is varbinary(1000). */
  static final int MAX_MESSAGE = VReplicationStreams.MAX_MESSAGE;

  private static final String COLUMNS = "id, workflow, source, pos, stop_pos, state, message, db_name";

  private final String vreplication;
  private final String copyState;

  StreamTable(String sidecarDb) {
    this.vreplication = Sql.quote(sidecarDb) + ".vreplication";
    this.copyState = Sql.quote(sidecarDb) + ".copy_state";
  }

  /** Every stream row of the primary. */
  List<StreamRow> readAll(Connection c) throws SQLException {
    List<StreamRow> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + vreplication + " ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(row(rs));
      }
    }
    return out;
  }

  Optional<StreamRow> read(Connection c, long id) throws SQLException {
    return select(c, id, "");
  }

  /**
   * Reads the row and holds its lock until the caller's transaction ends, so an external
   * {@code UPDATE ... SET state='Stopped'} either commits before (and this caller sees it) or
   * waits until the caller's transaction is done: nothing is applied after a stop committed.
   */
  Optional<StreamRow> lock(Connection c, long id) throws SQLException {
    return select(c, id, " FOR UPDATE");
  }

  private Optional<StreamRow> select(Connection c, long id, String suffix) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + vreplication + " WHERE id = ?" + suffix)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  /** Records an applied source transaction: its position and commit time. */
  void recordApplied(Connection c, long id, String pos, long transactionTimestamp, long now) throws SQLException {
    update(c, "UPDATE " + vreplication + " SET pos = ?, transaction_timestamp = ?, time_updated = ? WHERE id = ?",
        pos, transactionTimestamp, now, id);
  }

  /** Records liveness while idle, and the position passed by transactions that carried nothing for this stream. */
  void recordHeartbeat(Connection c, long id, String pos, long now) throws SQLException {
    update(c, "UPDATE " + vreplication + " SET pos = ?, time_heartbeat = ?, time_updated = ? WHERE id = ?",
        pos, now, now, id);
  }

  void setState(Connection c, long id, StreamState state, String message, long now) throws SQLException {
    update(c, "UPDATE " + vreplication + " SET state = ?, message = ?, time_updated = ? WHERE id = ?",
        state.column(), truncate(message), now, id);
  }

  /** Starts a copy: one copy_state row per table, state Copying and a fresh row count. */
  void startCopy(Connection c, long id, List<String> tables, long now) throws SQLException {
    update(c, "DELETE FROM " + copyState + " WHERE vrepl_id = ?", id);
    for (String t : tables) {
      update(c, "INSERT INTO " + copyState + " (vrepl_id, table_name, lastpk) VALUES (?, ?, NULL)", id, t);
    }
    update(c, "UPDATE " + vreplication + " SET state = ?, message = '', rows_copied = 0, time_updated = ? WHERE id = ?",
        StreamState.COPYING.column(), now, id);
  }

  /** Records a copied batch: the last key copied of the table and the rows added. */
  void copyProgress(Connection c, long id, String table, String lastPk, long rows, long now) throws SQLException {
    update(c, "UPDATE " + copyState + " SET lastpk = ? WHERE vrepl_id = ? AND table_name = ?", lastPk, id, table);
    update(c, "UPDATE " + vreplication + " SET rows_copied = rows_copied + ?, time_updated = ? WHERE id = ?", rows, now, id);
  }

  /** Ends a copy: no copy_state rows left, replication starts at the snapshot position. */
  void finishCopy(Connection c, long id, String pos, long now) throws SQLException {
    update(c, "DELETE FROM " + copyState + " WHERE vrepl_id = ?", id);
    update(c, "UPDATE " + vreplication + " SET pos = ?, state = ?, message = '', time_updated = ? WHERE id = ?",
        pos, StreamState.RUNNING.column(), now, id);
  }

  int copyStateRows(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + copyState + " WHERE vrepl_id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** The message cut to {@link #MAX_MESSAGE} UTF-8 bytes, as the workflows cut theirs. */
  static String truncate(String message) {
    return VReplicationStreams.truncate(message);
  }

  private static void update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.executeUpdate();
    }
  }

  private static StreamRow row(ResultSet rs) throws SQLException {
    return new StreamRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
        rs.getString(6), rs.getString(7), rs.getString(8));
  }
}
