package io.pointsman.demo;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Everything an action could change in the playground, to tell "changed nothing" from "changed the
 * routing rules only": every etcd key under the topology roots with its exact bytes (lock keys
 * aside: they come and go with every action, even a dry run's), and per shard primary the stream
 * rows' stable columns, the journal rows and the tables under a write barrier.
 */
record SandboxSnapshot(SortedMap<String, String> state) {
  private static final int ER_NO_SUCH_TABLE = 1146;

  static SandboxSnapshot take(Playground world) throws Exception {
    SortedMap<String, String> state = new TreeMap<>();
    var paths = world.sandbox.options().topoPaths();
    for (String root : new TreeSet<>(List.of(paths.globalRoot() + "/", paths.cellRootPrefix() + "/"))) {
      List<KeyValue> kvs = world.sandbox.etcdClient().getKVClient()
          .get(ByteSequence.from(root, StandardCharsets.UTF_8), GetOption.builder().isPrefix(true).build())
          .get(30, TimeUnit.SECONDS).getKvs();
      for (KeyValue kv : kvs) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        if (!key.contains("/locks/")) {
          state.put("etcd " + key, Base64.getEncoder().encodeToString(kv.getValue().getBytes()));
        }
      }
    }
    var store = world.services.store();
    for (String keyspace : store.listKeyspaces()) {
      for (String shard : store.listShards(keyspace)) {
        PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
        state.put("primary " + keyspace + "/" + shard, String.join("\n", rows(world, ep)));
      }
    }
    return new SandboxSnapshot(state);
  }

  /** The keys whose value differs, was added or is gone; empty when nothing changed. */
  List<String> differencesTo(SandboxSnapshot after) {
    List<String> out = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(state.keySet());
    keys.addAll(after.state.keySet());
    for (String key : keys) {
      String was = state.get(key);
      String now = after.state.get(key);
      if (was == null) {
        out.add(key + " created");
      } else if (now == null) {
        out.add(key + " deleted");
      } else if (!was.equals(now)) {
        out.add(key + " changed" + (key.startsWith("primary ") ? "\n  was: " + was + "\n  now: " + now : ""));
      }
    }
    return out;
  }

  private static List<String> rows(Playground world, PrimaryEndpoint ep) throws Exception {
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

  private static void query(Connection c, String sql, String label, List<String> rows) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder(label);
        for (int i = 1; i <= columns; i++) {
          byte[] b = rs.getBytes(i);
          row.append(' ').append(rs.getMetaData().getColumnLabel(i)).append('=')
              .append(b == null ? "NULL" : Base64.getEncoder().encodeToString(b));
        }
        rows.add(row.toString());
      }
    } catch (java.sql.SQLException e) {
      if (e.getErrorCode() != ER_NO_SUCH_TABLE) {
        throw e;
      }
    }
  }
}
