package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.cluster.RunningPrimary;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything a dry run must leave alone, captured from a {@link SwitchWorld}: every etcd key under
 * the world's topology roots with its value and mod revision (so an identical rewrite still shows),
 * and per primary the stable columns of {@code _vt.vreplication} (not the ones a running stream
 * moves: pos, timestamps, counters), the journal rows, the fence tokens, the copy state, the tables
 * and the triggers of its database. Two snapshots are equal when nothing was changed.
 */
record DryRunSnapshot(long revision, Map<String, String> etcd, Map<String, List<String>> primaries) {
  private static final String STABLE_STREAM_COLUMNS = "id, workflow, source, stop_pos, state, message, cell,"
      + " tablet_types, db_name, workflow_type, workflow_sub_type, defer_secondary_keys, options";

  static DryRunSnapshot take(SwitchWorld world) throws Exception {
    Map<String, String> etcd = new TreeMap<>();
    ByteSequence prefix = bytes(prefix(world.paths));
    GetResponse got = world.etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
        .get(30, TimeUnit.SECONDS);
    for (KeyValue kv : got.getKvs()) {
      etcd.put(kv.getKey().toString(StandardCharsets.UTF_8),
          "rev " + kv.getModRevision() + " lease " + kv.getLease() + " "
              + kv.getValue().toString(StandardCharsets.UTF_8));
    }
    Map<String, List<String>> primaries = new TreeMap<>();
    for (RunningPrimary p : world.sandbox.primaries()) {
      PrimaryEndpoint ep = p.endpoint();
      try (Connection c = world.sandbox.connect(ep.keyspace(), ep.shard())) {
        List<String> rows = new ArrayList<>();
        rows.addAll(sidecar(c, ep.sidecarDb(), "vreplication",
            "SELECT " + STABLE_STREAM_COLUMNS + " FROM %s ORDER BY id"));
        rows.addAll(sidecar(c, ep.sidecarDb(), "resharding_journal", "SELECT id, db_name, val FROM %s ORDER BY id"));
        rows.addAll(sidecar(c, ep.sidecarDb(), "copy_state", "SELECT * FROM %s ORDER BY 1, 2"));
        rows.addAll(sidecar(c, ep.sidecarDb(), "lock_fence", "SELECT * FROM %s ORDER BY 1"));
        rows.addAll(rows(c, "table", "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES"
            + " WHERE TABLE_SCHEMA = '" + ep.dbName() + "' ORDER BY 1"));
        rows.addAll(rows(c, "trigger", "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION,"
            + " ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '" + ep.dbName()
            + "' ORDER BY 1"));
        primaries.put(ep.keyspace() + "/" + ep.shard(), rows);
      }
    }
    return new DryRunSnapshot(got.getHeader().getRevision(), etcd, primaries);
  }

  /**
   * Runs a dry run and asserts that it changed nothing: no etcd event under the roots while it ran
   * (not even a lock taken and released), the same keys, values and revisions after it, no lock key
   * left, and the same sidecar rows, tables and triggers on every primary.
   */
  static <T> T assertChangesNothing(SwitchWorld world, Callable<T> dryRun) throws Exception {
    DryRunSnapshot before = take(world);
    // A snapshot that saw nothing would compare equal to anything.
    assertThat(before.etcd().keySet()).anyMatch(k -> k.endsWith("/SrvKeyspace")).anyMatch(k -> k.endsWith("/Shard"));
    assertThat(before.primaries()).hasSameSizeAs(world.sandbox.primaries());
    assertThat(before.primaries().values())
        .anyMatch(rows -> rows.stream().anyMatch(r -> r.startsWith("vreplication ")));
    T result;
    List<String> seen;
    try (EtcdEvents events = new EtcdEvents(world, before.revision() + 1)) {
      result = dryRun.call();
      seen = events.settle(world);
    }
    DryRunSnapshot after = take(world);
    assertThat(seen).as("etcd events under the world's roots during the dry run").isEmpty();
    assertThat(after.lockKeys()).as("lock keys after the dry run").isEmpty();
    assertThat(after.etcd()).as("etcd keys, values and revisions").isEqualTo(before.etcd());
    assertThat(after.primaries()).as("sidecar rows, tables and triggers of every primary")
        .isEqualTo(before.primaries());
    return result;
  }

  /** The prefix that holds the world's global and cell topology (the cell roots sit beside the global one). */
  static String prefix(TopoPaths paths) {
    String prefix = paths.cellRootPrefix() + "/";
    if (!paths.globalRoot().startsWith(prefix)) {
      throw new IllegalStateException("the global root " + paths.globalRoot() + " is not under " + prefix);
    }
    return prefix;
  }

  /** Keys that are topology locks (Vitess's {@code .../locks/<lease>}). */
  List<String> lockKeys() {
    return etcd.keySet().stream().filter(TopoPaths::isLockKey).toList();
  }

  /** Records every etcd event under the world's roots from a revision on. */
  static final class EtcdEvents implements AutoCloseable {
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicLong progress = new AtomicLong();
    private final Watch.Watcher watcher;

    EtcdEvents(SwitchWorld world, long fromRevision) {
      this.watcher = world.etcd.getWatchClient().watch(bytes(prefix(world.paths)),
          WatchOption.builder().isPrefix(true).withRevision(fromRevision).build(), response -> {
            for (WatchEvent e : response.getEvents()) {
              events.add(e.getEventType() + " " + e.getKeyValue().getKey().toString(StandardCharsets.UTF_8) + " at "
                  + e.getKeyValue().getModRevision());
              progress.accumulateAndGet(e.getKeyValue().getModRevision(), Math::max);
            }
            // Only a progress notification says every event up to its revision was delivered.
            if (response.isProgressNotify()) {
              progress.accumulateAndGet(response.getHeader().getRevision(), Math::max);
            }
          });
    }

    /** The events up to etcd's current revision: waits until the watch has caught up with it. */
    List<String> settle(SwitchWorld world) throws Exception {
      long now = world.etcd.getKVClient().get(bytes(prefix(world.paths)), GetOption.builder().withCountOnly(true)
          .build()).get(30, TimeUnit.SECONDS).getHeader().getRevision();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        watcher.requestProgress();
        return progress.get() >= now;
      });
      return List.copyOf(events);
    }

    @Override
    public void close() {
      watcher.close();
    }
  }

  /** The rows of a sidecar table, labelled with its name; none when the table does not exist (yet). */
  private static List<String> sidecar(Connection c, String db, String table, String sqlFormat) throws SQLException {
    if (!hasTable(c, db, table)) {
      return List.of();
    }
    return rows(c, table, String.format(sqlFormat, "`" + db + "`." + table));
  }

  private static boolean hasTable(Connection c, String db, String table) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM information_schema.TABLES"
        + " WHERE TABLE_SCHEMA = '" + db + "' AND TABLE_NAME = '" + table + "'")) {
      return rs.next();
    }
  }

  private static List<String> rows(Connection c, String kind, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        StringBuilder row = new StringBuilder(kind);
        for (int i = 1; i <= md.getColumnCount(); i++) {
          byte[] raw = rs.getBytes(i);
          row.append(' ').append(md.getColumnLabel(i)).append('=')
              .append(raw == null ? "NULL" : new String(raw, StandardCharsets.UTF_8));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
