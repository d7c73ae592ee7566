package io.pointsman.activities.show;

import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.SqlErrors;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.primary.ShardRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@link SidecarReads} over MySQL connections to the shard primaries (the sandbox's backend). */
public final class MySqlSidecarReads implements SidecarReads {
  /** MySQL's "table doesn't exist": a sidecar without Vitess's log table has no log to show. */
  private static final int NO_SUCH_TABLE = 1146;

  private final ConnectionPools pools;
  private final PrimaryResolver primaries;
  private final VReplicationStreams streams;

  public MySqlSidecarReads(ConnectionPools pools, PrimaryResolver primaries, VReplicationStreams streams) {
    this.pools = pools;
    this.primaries = primaries;
    this.streams = streams;
  }

  @Override
  public List<Stream> streams(ShardRef shard, String workflow) {
    return streams.read(primaries.resolve(shard.keyspace(), shard.shard()), workflow);
  }

  @Override
  public List<CopyStateRow> copyStates(ShardRef shard, Collection<Integer> streamIds) {
    return rowsOfStreams(shard, streamIds, "vrepl_id, table_name, lastpk", "copy_state", "copy state",
        rs -> new CopyStateRow(rs.getInt(1), rs.getString(2), rs.getString(3)));
  }

  @Override
  public List<LogRow> logs(ShardRef shard, Collection<Integer> streamIds) {
    return rowsOfStreams(shard, streamIds, "id, vrepl_id, type, state, created_at, updated_at, message, count",
        "vreplication_log", "log",
        rs -> new LogRow(rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getString(4), instant(rs.getTimestamp(5)),
            instant(rs.getTimestamp(6)), rs.getString(7), rs.getLong(8)));
  }

  /** Reads one value from the current row of a result set. */
  private interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * One value per row of the sidecar table {@code table} that belongs to the streams, in stream
   * order; none for no streams, and none when the sidecar lacks the table.
   */
  private <T> List<T> rowsOfStreams(ShardRef shard, Collection<Integer> streamIds, String columns, String table,
      String what, RowReader<T> row) {
    if (streamIds.isEmpty()) {
      return List.of();
    }
    PrimaryEndpoint p = primaries.resolve(shard.keyspace(), shard.shard());
    String sql = "SELECT " + columns + " FROM " + SqlIdentifiers.qualified(p.sidecarDb(), table)
        + " WHERE vrepl_id IN (" + marks(streamIds.size()) + ") ORDER BY vrepl_id, id";
    List<T> out = new ArrayList<>();
    try (Connection c = pools.connection(p); PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, streamIds);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(row.read(rs));
        }
      }
      return out;
    } catch (SQLException e) {
      if (e.getErrorCode() == NO_SUCH_TABLE) {
        return List.of();
      }
      throw SqlErrors.translate("reading the " + what + " of streams " + streamIds + " on " + p, e);
    }
  }

  @Override
  public Map<String, TableSize> tableSizes(ShardRef shard, Collection<String> tables) {
    if (tables.isEmpty()) {
      return Map.of();
    }
    PrimaryEndpoint p = primaries.resolve(shard.keyspace(), shard.shard());
    String sql = "SELECT table_name, table_rows, data_length FROM information_schema.tables WHERE table_schema = ?"
        + " AND table_name IN (" + marks(tables.size()) + ")";
    Map<String, TableSize> out = new TreeMap<>();
    try (Connection c = pools.connection(p); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, p.dbName());
      int i = 2;
      for (String t : tables) {
        ps.setString(i++, t);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new TableSize(rs.getLong(2), rs.getLong(3)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the sizes of tables " + tables + " on " + p, e);
    }
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  private static void bind(PreparedStatement ps, Collection<Integer> ids) throws SQLException {
    int i = 1;
    for (int id : ids) {
      ps.setInt(i++, id);
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? Instant.EPOCH : t.toInstant();
  }
}
