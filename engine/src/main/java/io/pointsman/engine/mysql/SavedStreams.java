package io.pointsman.engine.mysql;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.names.Names;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Whole {@code vreplication} rows kept aside and put back, ids included: what a compensation needs
 * to undo a step that replaced a workflow's streams (see SwitchActivities#restoreReverseVReplication).
 * Unlike {@link VReplicationStreams} it copies columns as they are, without interpreting them.
 */
public final class SavedStreams {
  private static final String COLUMNS = "id, workflow, source, pos, stop_pos, max_tps, max_replication_lag, cell,"
      + " tablet_types, time_updated, transaction_timestamp, state, message, db_name, workflow_type,"
      + " workflow_sub_type, options";

  private final ConnectionPools pools;
  private final MySqlFence fence;
  private final SidecarSchema schema;

  public SavedStreams(ConnectionPools pools, MySqlFence fence, SidecarSchema schema) {
    this.pools = pools;
    this.fence = fence;
    this.schema = schema;
  }

  /** The workflow's rows in the endpoint's database, as they are now. */
  public List<SavedStream> save(PrimaryEndpoint endpoint, String workflow) {
    Names.workflow(workflow);
    schema.ensure(endpoint);
    try (Connection c = pools.connection(endpoint);
        PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table(endpoint)
            + " WHERE db_name = ? AND workflow = ? ORDER BY id")) {
      ps.setString(1, endpoint.dbName());
      ps.setString(2, workflow);
      List<SavedStream> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new SavedStream(endpoint.shard(), rs.getLong("id"), text(rs, "workflow"), text(rs, "source"),
              text(rs, "pos"), text(rs, "stop_pos"), rs.getLong("max_tps"), rs.getLong("max_replication_lag"),
              text(rs, "cell"), text(rs, "tablet_types"), rs.getLong("time_updated"),
              rs.getLong("transaction_timestamp"), text(rs, "state"), text(rs, "message"), text(rs, "db_name"),
              rs.getInt("workflow_type"), rs.getInt("workflow_sub_type"), text(rs, "options")));
        }
      }
      return out;
    } catch (SQLException e) {
      throw SqlErrors.translate("saving the streams of workflow " + workflow + " on " + endpoint, e);
    }
  }

  /**
   * Makes the workflow's rows exactly the saved ones, in one fenced transaction: rows of that name
   * not saved are deleted (with their copy state), saved rows are written back under their ids.
   * Idempotent.
   */
  public void restore(PrimaryEndpoint endpoint, String workflow, List<SavedStream> saved, LockSet locks) {
    Names.workflow(workflow);
    for (SavedStream s : saved) {
      if (!s.workflow().equals(workflow) || !s.dbName().equals(endpoint.dbName())) {
        throw io.pointsman.api.errors.PointsmanException.invalidArgument("saved stream " + s.id() + " of "
            + s.workflow() + " in " + s.dbName() + " does not belong to " + workflow + " on " + endpoint);
      }
    }
    fence.inTransaction(endpoint, locks, "restoring the streams of workflow " + workflow, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SqlIdentifiers.qualified(endpoint.sidecarDb(),
          "copy_state") + " WHERE vrepl_id IN (SELECT id FROM " + table(endpoint)
          + " WHERE db_name = ? AND workflow = ?)")) {
        ps.setString(1, endpoint.dbName());
        ps.setString(2, workflow);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(endpoint)
          + " WHERE db_name = ? AND workflow = ?")) {
        ps.setString(1, endpoint.dbName());
        ps.setString(2, workflow);
        ps.executeUpdate();
      }
      for (SavedStream s : saved) {
        insert(c, endpoint, s);
      }
      return null;
    });
  }

  private static void insert(Connection c, PrimaryEndpoint endpoint, SavedStream s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint) + " (" + COLUMNS
        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setLong(1, s.id());
      ps.setString(2, s.workflow());
      ps.setBytes(3, s.source() == null ? null : s.source().getBytes(StandardCharsets.UTF_8));
      ps.setString(4, s.pos());
      if (s.stopPos() == null) {
        ps.setNull(5, Types.VARBINARY);
      } else {
        ps.setString(5, s.stopPos());
      }
      ps.setLong(6, s.maxTps());
      ps.setLong(7, s.maxReplicationLag());
      ps.setString(8, s.cell());
      ps.setString(9, s.tabletTypes());
      ps.setLong(10, s.timeUpdated());
      ps.setLong(11, s.transactionTimestamp());
      ps.setString(12, s.state());
      ps.setString(13, s.message());
      ps.setString(14, s.dbName());
      ps.setInt(15, s.workflowType());
      ps.setInt(16, s.workflowSubType());
      ps.setString(17, s.options());
      ps.executeUpdate();
    }
  }

  private static String text(ResultSet rs, String column) throws SQLException {
    byte[] b = rs.getBytes(column);
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), "vreplication");
  }
}
