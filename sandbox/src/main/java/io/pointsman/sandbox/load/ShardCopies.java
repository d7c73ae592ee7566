package io.pointsman.sandbox.load;

import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rows of a key interval on every shard of every keyspace of the topology, read from each
 * shard's primary directly (not through the router). The router only shows the shard it serves a
 * key from, so a copy written to a second shard or to the side that does not serve it would be
 * invisible to it; this is how the verifier sees them.
 */
final class ShardCopies {
  /** MariaDB's ER_NO_SUCH_TABLE: the shard does not have the table (a keyspace it never moved to). */
  private static final int NO_SUCH_TABLE = 1146;

  /** {@code rows} rows with the key on the primary of {@code keyspace/shard}, whose key range is {@code range}. */
  record Copy(String keyspace, String shard, KeyRange range, long rows) {
    String where() {
      return keyspace + "/" + shard;
    }
  }

  private ShardCopies() {}

  /**
   * Counts the rows per key in [{@code minKey}, {@code maxKey}] on every shard that has the table.
   *
   * @throws IllegalStateException when a shard has no primary or its primary cannot be read: a
   *     shard that cannot be looked at is not evidence of no copy there
   */
  static Map<Long, List<Copy>> scan(TopologyStore store, String user, String password, String bareTable,
      String keyColumn, long minKey, long maxKey) {
    String sql = "SELECT " + Names.table(keyColumn) + ", COUNT(*) FROM " + Names.table(bareTable) + " WHERE "
        + Names.table(keyColumn) + " BETWEEN ? AND ? GROUP BY " + Names.table(keyColumn);
    Map<Long, List<Copy>> copies = new HashMap<>();
    for (String keyspace : store.listKeyspaces()) {
      for (String shardName : store.listShards(keyspace)) {
        Shard shard = store.getRequired(store.keys().shard(keyspace, shardName)).value();
        if (shard.primaryAlias() == null) {
          throw new IllegalStateException("shard " + keyspace + "/" + shardName + " has no primary to read");
        }
        Optional<Versioned<Tablet>> tablet = store.get(store.keys().tablet(shard.primaryAlias()));
        if (tablet.isEmpty()) {
          throw new IllegalStateException("primary " + shard.primaryAlias() + " of " + keyspace + "/" + shardName
              + " has no Tablet record");
        }
        Tablet t = tablet.get().value();
        String host = t.mysqlHostname() != null && !t.mysqlHostname().isEmpty() ? t.mysqlHostname() : t.hostname();
        String url = "jdbc:mysql://" + host + ":" + t.mysqlPort() + "/" + t.dbName();
        try (Connection c = DriverManager.getConnection(url, user, password);
            PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setLong(1, minKey);
          ps.setLong(2, maxKey);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              copies.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                  .add(new Copy(keyspace, shardName, shard.keyRange(), rs.getLong(2)));
            }
          }
        } catch (SQLException e) {
          if (e.getErrorCode() == NO_SUCH_TABLE) {
            continue;
          }
          throw new IllegalStateException("could not read " + bareTable + " on the primary of " + keyspace + "/"
              + shardName + " at " + host + ":" + t.mysqlPort() + ": " + e.getMessage(), e);
        }
      }
    }
    return copies;
  }
}
