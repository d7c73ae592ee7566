package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Inserts and reads {@code _vt.vreplication} rows on one primary, unfenced: for creating workflows
 * in the sandbox, where no topology lock guards the primaries (the switching workflows change
 * streams through io.pointsman.engine.mysql.VReplicationStreams, fenced by their locks). The
 * {@code source} column holds the BinlogSource in protobuf text format, as Vitess writes it and as
 * io.pointsman.engine.mysql and the stream runner read it.
 */
public final class VReplicationTable {
  /** Vitess's "throttling disabled" value for max_tps and max_replication_lag (math.MaxInt64). */
  static final long THROTTLER_DISABLED = Long.MAX_VALUE;

  private VReplicationTable() {}

  /**
   * A stream row to insert. {@code maxTps} and {@code maxReplicationLag} are 0 as MoveTables create
   * writes them, or {@link #THROTTLER_DISABLED} as Reshard create does.
   */
  record NewStream(
      String workflow, BinlogSource source, StreamState state, String dbName, WorkflowType type,
      long maxTps, long maxReplicationLag) {}

  /** Inserts a stream; returns its id. Runs in the caller's transaction. */
  static long insert(Connection c, String sidecarDb, NewStream s) throws SQLException {
    String sql = "INSERT INTO `" + Names.database(sidecarDb) + "`.vreplication"
        + " (workflow, source, pos, max_tps, max_replication_lag, cell, tablet_types, time_updated,"
        + " transaction_timestamp, state, db_name, workflow_type, workflow_sub_type, defer_secondary_keys, options)"
        + " VALUES (?, ?, '', ?, ?, '', '', UNIX_TIMESTAMP(), 0, ?, ?, ?, 0, 0, '{}')";
    try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, s.workflow());
      ps.setString(2, SidecarText.encodeSource(s.source()));
      ps.setLong(3, s.maxTps());
      ps.setLong(4, s.maxReplicationLag());
      ps.setString(5, s.state().column());
      ps.setString(6, s.dbName());
      ps.setInt(7, s.type().code());
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw PointsmanException.internal("the vreplication insert returned no id", null);
        }
        return keys.getLong(1);
      }
    }
  }

  /** Whether any stream of the database exists (Vitess's HasVReplicationWorkflows). */
  static boolean hasStreams(Connection c, String sidecarDb, String dbName) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT 1 FROM `" + Names.database(sidecarDb) + "`.vreplication WHERE db_name = ? LIMIT 1")) {
      ps.setString(1, dbName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The streams of a workflow on this primary, by id. */
  public static List<VReplicationStream> read(Connection c, String sidecarDb, String workflow) throws SQLException {
    return query(c, sidecarDb, " WHERE workflow = ?", workflow);
  }

  /** Every stream on this primary, by id. */
  public static List<VReplicationStream> readAll(Connection c, String sidecarDb) throws SQLException {
    return query(c, sidecarDb, "", null);
  }

  private static List<VReplicationStream> query(Connection c, String sidecarDb, String where, String workflow)
      throws SQLException {
    String sql = "SELECT id, workflow, source, pos, stop_pos, state, message, db_name, workflow_type, cell,"
        + " tablet_types, time_updated FROM `" + Names.database(sidecarDb) + "`.vreplication" + where + " ORDER BY id";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (workflow != null) {
        ps.setString(1, workflow);
      }
      List<VReplicationStream> streams = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String row = sidecarDb + ".vreplication id " + rs.getLong(1);
          streams.add(new VReplicationStream(rs.getLong(1), rs.getString(2), SidecarText.decodeSource(row, rs.getString(3)),
              rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8),
              workflowType(rs.getInt(9)), rs.getString(10), rs.getString(11), rs.getLong(12)));
        }
      }
      return streams;
    }
  }

  private static WorkflowType workflowType(int code) {
    return Arrays.stream(WorkflowType.values()).filter(t -> t.code() == code).findFirst()
        .orElseThrow(() -> PointsmanException.internal("unknown workflow_type " + code, null));
  }
}
