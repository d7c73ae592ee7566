package io.pointsman.e2e;

import io.etcd.jetcd.KeyValue;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything a rejected input must leave untouched: every etcd key under the world's roots with its
 * value and mod revision (lock keys included: a rejected input must not even take a lock), and per
 * shard primary its tables, its triggers, the stable columns of {@code _vt.vreplication} (not the
 * ones a running stream moves) and the journal.
 */
record InputFuzzSnapshot(SortedMap<String, String> etcd, SortedMap<String, List<String>> primaries) {

  static InputFuzzSnapshot take(SwitchWorld world) throws Exception {
    SortedMap<String, String> etcd = new TreeMap<>();
    for (KeyValue kv : EtcdReads.under(world.etcd, world.paths.cellRootPrefix() + "/")) {
      etcd.put(kv.getKey().toString(StandardCharsets.UTF_8),
          kv.getModRevision() + " " + kv.getValue().toString(StandardCharsets.UTF_8));
    }
    SortedMap<String, List<String>> primaries = new TreeMap<>();
    for (String keyspace : world.store().listKeyspaces()) {
      for (String shard : world.store().listShards(keyspace)) {
        PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
        primaries.put(keyspace + "/" + shard, rows(world, ep));
      }
    }
    return new InputFuzzSnapshot(etcd, primaries);
  }

  private static List<String> rows(SwitchWorld world, PrimaryEndpoint ep) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = world.services.pools().connection(ep); Statement st = c.createStatement()) {
      query(st, "SELECT CONCAT('table ', table_schema, '.', table_name) FROM information_schema.tables "
          + "WHERE table_schema IN ('" + ep.dbName() + "', '" + ep.sidecarDb() + "') ORDER BY 1", out);
      query(st, "SELECT CONCAT('trigger ', trigger_schema, '.', trigger_name) FROM information_schema.triggers "
          + "ORDER BY 1", out);
      query(st, "SELECT CONCAT_WS(' ', 'stream', id, workflow, state, message, source, stop_pos, tablet_types) "
          + "FROM " + ep.sidecarDb() + ".vreplication ORDER BY id", out);
      query(st, "SELECT CONCAT_WS(' ', 'journal', id, db_name, val) FROM " + ep.sidecarDb()
          + ".resharding_journal ORDER BY id", out);
    }
    return out;
  }

  private static void query(Statement st, String sql, List<String> out) throws Exception {
    try (ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
  }
}
