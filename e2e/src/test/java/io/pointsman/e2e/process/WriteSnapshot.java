package io.pointsman.e2e.process;

import io.etcd.jetcd.KeyValue;
import io.pointsman.e2e.EtcdReads;
import io.pointsman.e2e.PrimaryRows;
import io.pointsman.engine.topo.TopoPaths;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything a switch writes, as of one moment: each etcd record under the world's roots with its
 * mod revision (so even a rewrite of the same value shows), and per shard primary the columns of
 * {@code _vt.vreplication} that only a switch changes (not the ones a running stream moves), the
 * journal rows and the tables under a write barrier. Lock keys and fence rows are left out: they
 * belong to whoever holds the locks.
 */
record WriteSnapshot(SortedMap<String, String> etcd, SortedMap<String, List<String>> primaries) {

  static WriteSnapshot take(ProcessWorld world) throws Exception {
    SortedMap<String, String> etcd = new TreeMap<>();
    for (KeyValue kv : EtcdReads.under(world.etcd, world.paths.cellRootPrefix() + "/")) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (!TopoPaths.isLockKey(key)) {
        etcd.put(key, "rev " + kv.getModRevision() + ": " + kv.getValue().toString(StandardCharsets.UTF_8));
      }
    }
    SortedMap<String, List<String>> primaries = new TreeMap<>();
    for (String keyspace : List.of(ProcessWorld.SOURCE, ProcessWorld.TARGET)) {
      for (String shard : world.services.store().listShards(keyspace)) {
        primaries.put(keyspace + "/" + shard, PrimaryRows.of(world.services, world.primary(keyspace, shard)));
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
}
