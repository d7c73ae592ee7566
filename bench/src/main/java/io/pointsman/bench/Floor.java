package io.pointsman.bench;

import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.mysql.PrepareBudget;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.switching.TopologySwitcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The physical floor of a write window on this machine: the operations a write switch cannot do
 * without, back to back in this process, with no orchestration (no Temporal, no activities, no
 * lock per step, no state reads): the etcd transaction that denies the moved tables on the source
 * shards, the barrier's flip on each source primary (prepared beforehand, as the switch does),
 * the source positions, each stream's catch-up to them (nothing to catch up but the flip), and a
 * second etcd transaction on the same shard records, standing in for the routing change (it lifts
 * the denial, so the floor leaves the world as it found it; the routing write of a real switch
 * writes routing rules instead). Then, untimed, the gate is opened again. Measured without load.
 */
final class Floor {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /**
   * @param total the whole floor sequence
   * @param steps each operation's own times, in sequence order
   */
  record Figures(String migration, Stats total, Map<String, Stats> steps) {}

  private Floor() {}

  static Figures run(BenchWorld world, BenchMigration m, int samples) {
    SwitchActivitiesImpl reads = new SwitchActivitiesImpl(world.services);
    MigrationInfo info = reads.buildTrafficSwitcher(m.targetKeyspace(), m.workflow());
    TopologySwitcher topology = new TopologySwitcher(world.services.store());
    WriteScope scope = info.migrationType() == MigrationType.TABLES ? WriteScope.tables(info.tables())
        : WriteScope.wholeDatabase();
    List<String> names = List.of("etcd: deny on the source", "barrier flip", "source positions", "catch-up",
        "etcd: second transaction");
    Map<String, List<Long>> times = new HashMap<>();
    names.forEach(n -> times.put(n, new ArrayList<>()));
    List<Long> totals = new ArrayList<>();
    List<HeldLock> held = new ArrayList<>();
    try {
      LockOptions options = LockOptions.builder().action("bench floor").ttl(SwitchSeries.LOCK_TTL).build();
      for (String ks : info.keyspaces().stream().sorted().distinct().toList()) {
        held.add(world.services.locks().lockKeyspace(ks, options));
      }
      LockSet locks = new LockSet(held.stream().map(HeldLock::token).toList());
      for (String shard : info.sourceShards()) {
        ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
        world.services.primary(source).writeGate().prepare(source, scope, "bench floor", locks, PrepareBudget.within(TIMEOUT));
      }
      for (int i = 0; i < samples; i++) {
        long start = System.nanoTime();
        long t = start;
        topology.stopSourceWrites(info, locks);
        t = lap(times, names.get(0), t);
        for (String shard : info.sourceShards()) {
          ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
          world.services.primary(source).writeGate().deny(source, scope, locks, TIMEOUT);
        }
        t = lap(times, names.get(1), t);
        Map<String, Position> positions = new HashMap<>();
        for (String shard : info.sourceShards()) {
          ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
          positions.put(shard, world.services.primary(source).positions().current(source));
        }
        t = lap(times, names.get(2), t);
        for (var stream : info.streams()) {
          ShardRef target = new ShardRef(info.targetKeyspace(), stream.targetShard());
          world.services.primary(target).positions().waitFor(target, (int) stream.id(),
              positions.get(stream.sourceShard()), TIMEOUT);
        }
        t = lap(times, names.get(3), t);
        topology.allowSourceWrites(info, locks);
        lap(times, names.get(4), t);
        totals.add(System.nanoTime() - start);
        for (String shard : info.sourceShards()) {
          ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
          world.services.primary(source).writeGate().open(source, scope, locks, TIMEOUT);
        }
      }
    } finally {
      for (int i = held.size() - 1; i >= 0; i--) {
        held.get(i).close();
      }
    }
    Map<String, Stats> steps = new java.util.LinkedHashMap<>();
    names.forEach(n -> steps.put(n, Stats.ofNanos(times.get(n))));
    return new Figures(m.label(), Stats.ofNanos(totals), steps);
  }

  private static long lap(Map<String, List<Long>> times, String name, long since) {
    long now = System.nanoTime();
    times.get(name).add(now - since);
    return now;
  }

  /** The floor beside the W p50 of the same migration's blocks, through Temporal and direct. */
  static String markdown(Figures floor, List<SwitchSeries.Block> windows) {
    StringBuilder md = new StringBuilder("## The floor\n\n");
    md.append("The operations a write switch cannot do without, back to back with no orchestration (`Floor`): ")
        .append("the etcd transaction denying the moved tables on the source shards, the barrier's flip on each ")
        .append("source primary (prepared beforehand), the source positions, each stream's catch-up to them ")
        .append("(nothing to catch up), and a second etcd transaction on the same shard records standing in ")
        .append("for the routing change. No load; ").append(floor.total().count()).append(" samples, ")
        .append(floor.migration()).append(".\n\n");
    md.append("| operation | p50 / p99 / max (ms) |\n|---|---|\n");
    floor.steps().forEach((name, s) -> md.append("| ").append(name).append(" | ").append(s.summaryMillis())
        .append(" |\n"));
    md.append("| **floor** | ").append(floor.total().summaryMillis()).append(" |\n\n");
    if (!windows.isEmpty()) {
      md.append("| migration | rate (writes/s) | W p50 Temporal (ms) | × floor | W p50 direct (ms) | × floor |\n");
      md.append("|---|---:|---:|---:|---:|---:|\n");
      double f = floor.total().p50().toNanos() / 1e6;
      for (SwitchSeries.Block b : windows) {
        if (!b.migration().label().equals(floor.migration())) {
          continue;
        }
        double t = Report.windows(b.by(Report.TEMPORAL)).p50().toNanos() / 1e6;
        double d = Report.windows(b.by(Report.DIRECT)).p50().toNanos() / 1e6;
        md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.1f | %.0f | %.1f |%n", b.migration().label(),
            b.rate(), t, t / f, d, d / f));
      }
      md.append('\n');
    }
    return md.toString();
  }
}
