package io.pointsman.e2e.process;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.mysql.PrimaryEndpoint;
import io.pointsman.mysql.SqlIdentifiers;
import io.pointsman.topo.TopoPaths;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Everything a switch writes, as of one moment: each etcd record under the world's roots with its
 * mod revision (so even a rewrite of the same value shows), and per shard primary the columns of
 * {@code _vt.vreplication} that only a switch changes (not the ones a running stream moves), the
 * journal rows and the tables under a write barrier. Lock keys and fence rows are left out: they
 * belong to whoever holds the locks.
 */
record WriteSnapshot(SortedMap<String, String> etcd, SortedMap<String, List<String>> primaries) {
  private static final int ER_NO_SUCH_TABLE = 1146;

  static WriteSnapshot take(ProcessWorld world) throws Exception {
    SortedMap<String, String> etcd = new TreeMap<>();
    ByteSequence prefix = ByteSequence.from(world.paths.cellRootPrefix() + "/", StandardCharsets.UTF_8);
    for (KeyValue kv : world.etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
        .get(30, TimeUnit.SECONDS).getKvs()) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (!TopoPaths.isLockKey(key)) {
        etcd.put(key, "rev " + kv.getModRevision() + ": " + kv.getValue().toString(StandardCharsets.UTF_8));
      }
    }
    SortedMap<String, List<String>> primaries = new TreeMap<>();
    for (String keyspace : List.of(ProcessWorld.SOURCE, ProcessWorld.TARGET)) {
      for (String shard : world.services.store().listShards(keyspace)) {
        primaries.put(keyspace + "/" + shard, rows(world, world.primary(keyspace, shard)));
      }
    }
    return new WriteSnapshot(etcd, primaries);
  }

  /** One readable line per difference to {@code later}; empty when nothing was written. */
  List<String> changesTo(WriteSnapshot later) {
    List<String> out = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(etcd.keySet());
    keys.addAll(later.etcd.keySet());
    for (String key : keys) {
      String was = etcd.get(key);
      String now = later.etcd.get(key);
      if (was == null || !was.equals(now)) {
        out.add("etcd " + key + "\n    was: " + was + "\n    now: " + now);
      }
    }
    primaries.forEach((shard, rows) -> {
      List<String> now = later.primaries.getOrDefault(shard, List.of());
      rows.stream().filter(r -> !now.contains(r)).forEach(r -> out.add(shard + " lost   " + r));
      now.stream().filter(r -> !rows.contains(r)).forEach(r -> out.add(shard + " gained " + r));
    });
    return out;
  }

  private static List<String> rows(ProcessWorld world, PrimaryEndpoint ep) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = world.services.pools().connection(ep)) {
      query(c, "SELECT id, workflow, source, state, message, stop_pos, db_name FROM "
          + SqlIdentifiers.qualified(ep.sidecarDb(), "vreplication") + " ORDER BY id", "stream", rows);
      query(c, "SELECT id, db_name, val FROM " + SqlIdentifiers.qualified(ep.sidecarDb(), "resharding_journal")
          + " ORDER BY id", "journal", rows);
    }
    world.services.barrier().deniedTables(ep).forEach(t -> rows.add("barrier " + t));
    return rows;
  }

  private static void query(Connection c, String sql, String label, List<String> rows) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      read(rs, label, rows);
    } catch (SQLException e) {
      if (e.getErrorCode() != ER_NO_SUCH_TABLE) {
        throw e;
      }
      // sidecar tables are created on first use: none yet means no rows
    }
  }

  private static void read(ResultSet rs, String label, List<String> rows) throws SQLException {
    int columns = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder row = new StringBuilder(label);
      for (int i = 1; i <= columns; i++) {
        byte[] b = rs.getBytes(i);
        row.append(' ').append(rs.getMetaData().getColumnLabel(i)).append('=')
            .append(b == null ? "NULL" : new String(b, StandardCharsets.UTF_8));
      }
      rows.add(row.toString());
    }
  }
}
