package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.etcd.jetcd.KeyValue;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.topo.TopoCodec;
import io.vitess.proto.Topodata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a rolled-back switch must leave exactly as it found it: every etcd key under the world's
 * topology roots with its value (lock keys aside, they come and go with every action), and per
 * shard primary the stable columns of {@code _vt.vreplication} (not the ones a running stream
 * moves: pos, timestamps, counters), the journal rows and the tables under a write barrier.
 * Values only, not revisions: a compensation rewrites records, it must rewrite them as they were.
 * Records are compared as the text form of their Vitess message (unknown fields print by number).
 * One normalisation: the {@code denied_tables} of a Shard record are a set (Vitess adds and removes
 * names, and sorts a workflow's tables), so their order is not compared; a compensation re-adds the
 * target's denied tables in the workflow's table order, not in the order MoveTables Create wrote.
 *
 * @param topology etcd key to value
 * @param primaries {@code keyspace/shard} to its rows, one string per row, each section prefixed
 *     ({@code stream}, {@code journal}, {@code barrier})
 */
record WorldSnapshot(SortedMap<String, String> topology, SortedMap<String, List<String>> primaries) {
  private static final String LOCKS_DIR = "/locks/";

  static WorldSnapshot take(SwitchWorld world) throws Exception {
    SortedMap<String, String> topology = new TreeMap<>();
    for (KeyValue kv : etcdUnderRoots(world)) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (!key.contains(LOCKS_DIR)) {
        topology.put(key, render(key, kv.getValue().getBytes()));
      }
    }
    SortedMap<String, List<String>> primaries = new TreeMap<>();
    for (String keyspace : world.store().listKeyspaces()) {
      for (String shard : world.store().listShards(keyspace)) {
        PrimaryEndpoint ep = world.services.primaries().resolve(keyspace, shard);
        primaries.put(keyspace + "/" + shard, PrimaryRows.of(world.services, ep));
      }
    }
    return new WorldSnapshot(topology, primaries);
  }

  /** The lock keys under the world's roots (keyspace, shard and named locks). */
  static List<String> lockKeys(SwitchWorld world) throws Exception {
    List<String> keys = new ArrayList<>();
    for (KeyValue kv : etcdUnderRoots(world)) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (key.contains(LOCKS_DIR)) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** The lock keys under one lock directory, e.g. {@code paths.keyspaceDir("commerce")}, with their leases. */
  static List<KeyValue> locksUnder(SwitchWorld world, String dir) throws Exception {
    return EtcdReads.under(world.etcd, dir + LOCKS_DIR);
  }

  /** The journal rows of every primary ({@code keyspace/shard: id db_name}). */
  List<String> journals() {
    List<String> out = new ArrayList<>();
    primaries.forEach((shard, rows) -> rows.stream().filter(r -> r.startsWith("journal "))
        .forEach(r -> out.add(shard + ": " + r.substring(0, Math.min(r.length(), 80)))));
    return out;
  }

  /**
   * Checks that {@code world} is as this snapshot saw it, etcd records and primaries alike, and
   * that no lock key is left: what a refused action must leave.
   */
  void assertNothingChangedIn(SwitchWorld world, String description) throws Exception {
    WorldSnapshot now = take(world);
    assertThat(now.differencesTo(this)).as(description).isEmpty();
    assertThat(now.topology()).isEqualTo(topology);
    assertThat(now.primaries()).isEqualTo(primaries);
    assertThat(lockKeys(world)).isEmpty();
  }

  /** Every difference from {@code after}, one readable line each; empty when they are equal. */
  List<String> differencesTo(WorldSnapshot after) {
    List<String> out = new ArrayList<>();
    diff("etcd ", topology, after.topology, out);
    TreeSet<String> shards = new TreeSet<>(primaries.keySet());
    shards.addAll(after.primaries.keySet());
    for (String shard : shards) {
      List<String> was = primaries.getOrDefault(shard, List.of());
      List<String> now = after.primaries.getOrDefault(shard, List.of());
      for (String row : was) {
        if (!now.contains(row)) {
          out.add(shard + " lost   " + row);
        }
      }
      for (String row : now) {
        if (!was.contains(row)) {
          out.add(shard + " gained " + row);
        }
      }
    }
    return out;
  }

  private static void diff(String what, Map<String, String> before, Map<String, String> after, List<String> out) {
    TreeSet<String> keys = new TreeSet<>(before.keySet());
    keys.addAll(after.keySet());
    for (String key : keys) {
      String was = before.get(key);
      String now = after.get(key);
      if (was == null) {
        out.add(what + key + " created: " + now);
      } else if (now == null) {
        out.add(what + key + " deleted, was: " + was);
      } else if (!was.equals(now)) {
        out.add(what + key + " changed\n    was: " + was + "\n    now: " + now);
      }
    }
  }

  /** A record as the one-line text of its Vitess message; any other value as its bytes in hex. */
  private static String render(String key, byte[] value) {
    Optional<Class<?>> type = TopoCodec.recordTypeAt(key);
    if (type.isEmpty()) {
      return HexFormat.of().formatHex(value);
    }
    Message m = TopoCodec.parse(key, value, type.get());
    if (m instanceof Topodata.Shard shard) {
      m = deniedTablesSorted(shard);
    }
    return TextFormat.printer().emittingSingleLine(true).printToString(m);
  }

  private static Topodata.Shard deniedTablesSorted(Topodata.Shard shard) {
    Topodata.Shard.Builder b = shard.toBuilder();
    for (Topodata.Shard.TabletControl.Builder control : b.getTabletControlsBuilderList()) {
      List<String> names = new ArrayList<>(control.getDeniedTablesList());
      names.sort(null);
      control.clearDeniedTables().addAllDeniedTables(names);
    }
    return b.build();
  }

  private static List<KeyValue> etcdUnderRoots(SwitchWorld world) throws Exception {
    // the global root sits under the cell root prefix in the sandbox: <root>/global and <root>/<cell>
    return EtcdReads.under(world.etcd, world.paths.cellRootPrefix() + "/");
  }
}
