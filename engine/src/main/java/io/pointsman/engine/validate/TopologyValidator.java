package io.pointsman.engine.validate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.Services;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.switching.MigrationReader;
import io.pointsman.engine.switching.TopologySwitcher;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.TabletControl;
import io.pointsman.engine.validate.ValidationReport.Violation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks that the topology, the shard primaries and the locks of one VReplication workflow agree
 * with one of its defined states (not switched, reads switched, all switched, or gone after
 * Complete/Cancel) — Vitess's missing "diagnose broken workflows" (vitessio/vitess#17736) and the
 * oracle of pointsman's failure tests. Read-only: it never writes to etcd or MySQL.
 *
 * <p>Invariants, each reported under its name:
 * <ul>
 *   <li>exactly one side accepts writes for each moved table ({@code BOTH_SIDES_WRITABLE},
 *       {@code NO_SIDE_WRITABLE}), and it is the side writes are routed to
 *       ({@code WRITES_ROUTED_TO_DENIED_SIDE}); TABLES: routing rules {@code t} and {@code src.t}
 *       agree ({@code ROUTING_RULES_DISAGREE}), the side not routed to is denied in the topology
 *       ({@code UNROUTED_SIDE_NOT_DENIED}), denial covers every shard of a side or none
 *       ({@code PARTIAL_DENIAL}), the source of switched writes has its write barrier
 *       ({@code SOURCE_WRITE_BARRIER_MISSING}), and the target primaries serve reads of their
 *       denied tables only while some of the workflow's traffic is mirrored to them
 *       ({@code TARGET_READS_ALLOWED_WITHOUT_MIRRORING}: vtctldclient MirrorTraffic sets allow_reads,
 *       a switch that removes the last mirror rule clears it); SHARDS: exactly one shard set is primary serving
 *       ({@code PRIMARY_SERVING_NOT_ONE_SIDE}) and each cell's SrvKeyspace PRIMARY partition serves
 *       exactly it ({@code SRV_KEYSPACE_PRIMARY_MISMATCH}, {@code SERVING_SHARD_QUERY_SERVICE_DISABLED});</li>
 *   <li>each cell's SrvVSchema carries the global routing rules ({@code SRV_VSCHEMA_STALE}); read
 *       partitions serve one whole shard set ({@code READ_PARTITION_MIXED}); writes are switched only
 *       after reads ({@code WRITES_SWITCHED_BEFORE_READS});</li>
 *   <li>forward streams are FROZEN iff writes are switched ({@code FROZEN_WITHOUT_WRITES_SWITCHED},
 *       {@code NOT_FROZEN_AFTER_WRITES_SWITCHED}); switched writes have their journal
 *       ({@code JOURNAL_MISSING}) and reverse streams ({@code REVERSE_STREAMS_MISSING}); reverse streams
 *       run only while writes are switched ({@code REVERSE_STREAMS_WITHOUT_SWITCH}) and are all FROZEN
 *       once writes are back on the source ({@code REVERSE_STREAMS_FROZEN_STATE});</li>
 *   <li>every lock key under the workflow's lock directories has a live lease
 *       ({@code LOCK_KEY_WITHOUT_LEASE}, {@code LOCK_KEY_LEASE_EXPIRED}), and none is held for an
 *       execution that has ended ({@code LOCK_KEY_OF_ENDED_WORKFLOW}; known only when the caller says
 *       which executions ended, see {@link #validate(String, String, EndedExecutions)}).</li>
 * </ul>
 */
public final class TopologyValidator {
  private static final List<TabletType> READ_TYPES = List.of(TabletType.REPLICA, TabletType.RDONLY);
  private static final long ETCD_TIMEOUT_SECONDS = 30;

  private final Client etcd;
  private final TopoPaths paths;
  private final Services services;
  private final TopologyStore store;
  private final TopoKeys keys;

  public TopologyValidator(Client etcd, TopoPaths paths, Services services) {
    this.etcd = etcd;
    this.paths = paths;
    this.services = services;
    this.store = services.store();
    this.keys = store.keys();
  }

  /** Validates the workflow {@code targetKeyspace.workflow} as it is now, lock keys by their leases alone. */
  public ValidationReport validate(String targetKeyspace, String workflow) {
    return validate(targetKeyspace, workflow, EndedExecutions.NONE);
  }

  /**
   * Validates the workflow {@code targetKeyspace.workflow} as it is now; a lock key naming an
   * execution that {@code ended} says has ended is a violation even while its lease lives (the
   * holder ended without releasing it, and every later lock of that directory waits on it).
   */
  public ValidationReport validate(String targetKeyspace, String workflow, EndedExecutions ended) {
    List<Violation> out = new ArrayList<>();
    Optional<MigrationInfo> found = readMigration(targetKeyspace, workflow);
    Set<String> lockDirs = new LinkedHashSet<>();
    lockDirs.add(paths.namedLockDir(Pointsman.namedLock(targetKeyspace, workflow)));
    lockDirs.add(paths.keyspaceDir(targetKeyspace));
    if (found.isEmpty()) {
      routedToDenied(targetKeyspace, out);
      srvVSchemaAgrees(out);
      checkLocks(lockDirs, ended, out);
      return new ValidationReport(targetKeyspace, workflow, "NO_WORKFLOW",
          "no streams of " + workflow + " on " + targetKeyspace + " (never created, completed or cancelled)", out);
    }
    MigrationInfo info = found.get();
    lockDirs.add(paths.keyspaceDir(info.sourceKeyspace()));
    for (String s : info.sourceShards()) {
      lockDirs.add(paths.shardDir(info.sourceKeyspace(), s));
    }
    for (String s : info.targetShards()) {
      lockDirs.add(paths.shardDir(info.targetKeyspace(), s));
    }
    WorkflowState ws = new TopologySwitcher(store).state(info, List.of());
    boolean writesSwitched = ws.writesSwitched();
    if (info.migrationType() == MigrationType.TABLES) {
      checkTables(info, writesSwitched, out);
    } else {
      checkShards(info, writesSwitched, out);
    }
    if (writesSwitched && !ws.readsFullySwitched()) {
      out.add(new Violation("WRITES_SWITCHED_BEFORE_READS", "writes are switched but reads are not in every cell: "
          + ws.summary()));
    }
    String streams = checkStreams(info, writesSwitched, out);
    checkLocks(lockDirs, ended, out);
    String state = writesSwitched ? "ALL_SWITCHED" : ws.anyReadsSwitched() ? "READS_SWITCHED" : "NOT_SWITCHED";
    return new ValidationReport(targetKeyspace, workflow, state,
        info.migrationType() + " " + info.sourceKeyspace() + " -> " + info.targetKeyspace() + ", " + ws.summary()
            + ", " + streams, out);
  }

  private Optional<MigrationInfo> readMigration(String targetKeyspace, String workflow) {
    try {
      return Optional.of(new MigrationReader(store, services::primary)
          .read(targetKeyspace, workflow));
    } catch (PointsmanException e) {
      if (e.code() == ErrorCode.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  // ---- TABLES --------------------------------------------------------------------------------

  private void checkTables(MigrationInfo info, boolean writesSwitched, List<Violation> out) {
    String src = info.sourceKeyspace();
    String tgt = info.targetKeyspace();
    Map<String, List<String>> rules = globalRules().asMap();
    Map<String, Set<String>> sourceBarriers = barriers(src, info.sourceShards());
    Map<String, Set<String>> targetBarriers = barriers(tgt, info.targetShards());
    for (String t : info.tables()) {
      String byName = firstKeyspace(rules.get(t));
      String byQualified = firstKeyspace(rules.get(src + "." + t));
      if (byName != null && byQualified != null && !byName.equals(byQualified)) {
        out.add(new Violation("ROUTING_RULES_DISAGREE", "table " + t + ": rule '" + t + "' routes to " + byName
            + " but '" + src + "." + t + "' routes to " + byQualified));
      }
      String routed = byQualified != null ? byQualified : byName != null ? byName : src;
      Side source = side(src, info.sourceShards(), t, sourceBarriers, out);
      Side target = side(tgt, info.targetShards(), t, targetBarriers, out);
      if (source.writable() && target.writable()) {
        out.add(new Violation("BOTH_SIDES_WRITABLE", "table " + t + " is denied on neither " + src + " nor " + tgt
            + " (no PRIMARY denied tables, no write barrier)"));
      } else if (!source.writable() && !target.writable()) {
        out.add(new Violation("NO_SIDE_WRITABLE", "table " + t + " is denied on both " + src + " (" + source
            + ") and " + tgt + " (" + target + ")"));
      } else {
        String writable = source.writable() ? src : tgt;
        if (!writable.equals(routed)) {
          out.add(new Violation("WRITES_ROUTED_TO_DENIED_SIDE", "table " + t + " is routed to " + routed
              + " but only " + writable + " accepts writes"));
        }
      }
      String unrouted = routed.equals(src) ? tgt : src;
      Side other = routed.equals(src) ? target : source;
      if (other.denied() < other.shards()) {
        out.add(new Violation("UNROUTED_SIDE_NOT_DENIED", "table " + t + " is routed to " + routed + " but "
            + unrouted + " has no PRIMARY denied tables for it on " + (other.shards() - other.denied()) + " of "
            + other.shards() + " shards"));
      }
      if (writesSwitched && !source.anyBarrier()) {
        out.add(new Violation("SOURCE_WRITE_BARRIER_MISSING", "writes of " + t + " are switched to " + tgt
            + " but no primary of " + src + " has its write barrier"));
      }
    }
    targetReadsAllowed(info, out);
    srvVSchemaAgrees(out);
  }

  /** Target primaries that serve reads of their denied tables while nothing of the workflow is mirrored. */
  private void targetReadsAllowed(MigrationInfo info, List<Violation> out) {
    MirrorRules mirror = store.get(keys.mirrorRules()).map(Versioned::value).orElse(MirrorRules.EMPTY);
    if (mirror.mirrorsAny(info.tables(), info.sourceKeyspace(), info.targetKeyspace())) {
      return;
    }
    for (String shard : info.targetShards()) {
      Shard record = store.getRequired(keys.shard(info.targetKeyspace(), shard)).value();
      if (record.tabletControl(TabletType.PRIMARY).map(TabletControl::allowReads).orElse(false)) {
        out.add(new Violation("TARGET_READS_ALLOWED_WITHOUT_MIRRORING", info.targetKeyspace() + "/" + shard
            + "'s PRIMARY tablet control allows reads of its denied tables " + record.deniedTables(TabletType.PRIMARY)
            + " but no mirror rule sends the workflow's traffic to " + info.targetKeyspace()));
      }
    }
  }

  /** How one keyspace's shards treat a table. */
  private record Side(int shards, int denied, int barriers) {
    boolean writable() {
      return denied == 0 && barriers == 0;
    }

    boolean anyBarrier() {
      return barriers > 0;
    }

    @Override
    public String toString() {
      return denied + "/" + shards + " shards deny it, " + barriers + " have a write barrier";
    }
  }

  private Side side(String keyspace, List<String> shards, String table, Map<String, Set<String>> barriers,
      List<Violation> out) {
    int denied = 0;
    int withBarrier = 0;
    for (String shard : shards) {
      Shard record = store.getRequired(keys.shard(keyspace, shard)).value();
      if (record.deniedTables(TabletType.PRIMARY).contains(table)) {
        denied++;
      }
      if (barriers.getOrDefault(shard, Set.of()).contains(table)) {
        withBarrier++;
      }
    }
    if (denied > 0 && denied < shards.size()) {
      out.add(new Violation("PARTIAL_DENIAL", "table " + table + " is denied on " + denied + " of " + shards.size()
          + " shards of " + keyspace));
    }
    return new Side(shards.size(), denied, withBarrier);
  }

  private Map<String, Set<String>> barriers(String keyspace, List<String> shards) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (String shard : shards) {
      ShardRef ref = new ShardRef(keyspace, shard);
      out.put(shard, services.primary(ref).writeGate().denied(ref));
    }
    return out;
  }

  private RoutingRules globalRules() {
    return store.get(keys.routingRules()).map(Versioned::value).orElse(RoutingRules.EMPTY);
  }

  private void srvVSchemaAgrees(List<Violation> out) {
    Map<String, List<String>> global = globalRules().asMap();
    for (String cell : store.listCells()) {
      Map<String, List<String>> served = store.get(keys.srvVSchema(cell)).map(Versioned::value)
          .map(SrvVSchema::routingRules).orElse(RoutingRules.EMPTY).asMap();
      if (!served.equals(global)) {
        Set<String> differ = new TreeSet<>();
        global.forEach((k, v) -> {
          if (!v.equals(served.get(k))) {
            differ.add(k);
          }
        });
        served.keySet().stream().filter(k -> !global.containsKey(k)).forEach(differ::add);
        out.add(new Violation("SRV_VSCHEMA_STALE", "cell " + cell + " serves routing rules that differ from the "
            + "global RoutingRules for " + differ));
      }
    }
  }

  /** Any state: a rule routing a table to a keyspace whose every shard denies it makes it unwritable (#17326). */
  private void routedToDenied(String keyspace, List<Violation> out) {
    List<String> shards;
    try {
      shards = store.listShards(keyspace);
    } catch (PointsmanException e) {
      return;
    }
    globalRules().asMap().forEach((from, to) -> {
      String dest = to.isEmpty() ? null : to.get(0);
      if (from.contains("@") || dest == null || !dest.startsWith(keyspace + ".")) {
        return;
      }
      String table = dest.substring(keyspace.length() + 1);
      boolean allDeny = !shards.isEmpty() && shards.stream().allMatch(s -> store.getRequired(keys.shard(keyspace, s))
          .value().deniedTables(TabletType.PRIMARY).contains(table));
      if (allDeny) {
        out.add(new Violation("WRITES_ROUTED_TO_DENIED_SIDE", "rule '" + from + "' routes to " + dest
            + " but every shard of " + keyspace + " denies " + table));
      }
    });
  }

  private static String firstKeyspace(List<String> to) {
    if (to == null || to.isEmpty()) {
      return null;
    }
    String first = to.get(0);
    int dot = first.indexOf('.');
    return dot < 0 ? first : first.substring(0, dot);
  }

  // ---- SHARDS --------------------------------------------------------------------------------

  private void checkShards(MigrationInfo info, boolean writesSwitched, List<Violation> out) {
    String ks = info.targetKeyspace();
    long sourceServing = info.sourceShards().stream()
        .filter(s -> store.getRequired(keys.shard(ks, s)).value().isPrimaryServing()).count();
    long targetServing = info.targetShards().stream()
        .filter(s -> store.getRequired(keys.shard(ks, s)).value().isPrimaryServing()).count();
    boolean sourceSide = sourceServing == info.sourceShards().size() && targetServing == 0;
    boolean targetSide = targetServing == info.targetShards().size() && sourceServing == 0;
    if (!sourceSide && !targetSide) {
      out.add(new Violation("PRIMARY_SERVING_NOT_ONE_SIDE", sourceServing + "/" + info.sourceShards().size()
          + " source shards and " + targetServing + "/" + info.targetShards().size()
          + " target shards are is_primary_serving"));
    }
    List<String> serving = writesSwitched ? info.targetShards() : info.sourceShards();
    for (String cell : store.listCells()) {
      Optional<SrvKeyspace> srv = store.get(keys.srvKeyspace(cell, ks)).map(Versioned::value);
      if (srv.isEmpty()) {
        out.add(new Violation("SRV_KEYSPACE_PRIMARY_MISMATCH", "cell " + cell + " has no SrvKeyspace for " + ks));
        continue;
      }
      KeyspacePartition primary = srv.get().partition(TabletType.PRIMARY).orElse(null);
      Set<String> refs = primary == null ? Set.of() : names(primary.shardReferences());
      if (!refs.equals(new TreeSet<>(serving))) {
        out.add(new Violation("SRV_KEYSPACE_PRIMARY_MISMATCH", "cell " + cell + ": PRIMARY references " + refs
            + " but the serving shards are " + serving));
      }
      if (primary != null) {
        for (ShardTabletControl c : primary.shardTabletControls()) {
          if (c.queryServiceDisabled() && serving.contains(c.name())) {
            out.add(new Violation("SERVING_SHARD_QUERY_SERVICE_DISABLED", "cell " + cell + ": PRIMARY of serving "
                + "shard " + c.name() + " has query_service_disabled"));
          }
        }
      }
      for (TabletType type : READ_TYPES) {
        Set<String> readRefs = srv.get().partition(type).map(p -> names(p.shardReferences())).orElse(Set.of());
        if (!readRefs.equals(new TreeSet<>(info.sourceShards())) && !readRefs.equals(new TreeSet<>(info.targetShards()))
            && !readRefs.isEmpty()) {
          out.add(new Violation("READ_PARTITION_MIXED", "cell " + cell + ": " + type + " references " + readRefs
              + ", neither the source shards " + info.sourceShards() + " nor the target shards "
              + info.targetShards()));
        }
      }
    }
  }

  private static Set<String> names(List<ShardReference> refs) {
    Set<String> out = new TreeSet<>();
    refs.forEach(r -> out.add(r.name()));
    return out;
  }

  // ---- streams -------------------------------------------------------------------------------

  private String checkStreams(MigrationInfo info, boolean writesSwitched, List<Violation> out) {
    int forward = 0;
    int frozen = 0;
    for (String shard : info.targetShards()) {
      ShardRef target = new ShardRef(info.targetKeyspace(), shard);
      for (Stream s : services.primary(target).streams().read(target, info.workflow())) {
        forward++;
        if (s.isFrozen()) {
          frozen++;
        }
      }
    }
    if (!writesSwitched && frozen > 0) {
      out.add(new Violation("FROZEN_WITHOUT_WRITES_SWITCHED", frozen + " of " + forward + " streams of "
          + info.workflow() + " are FROZEN but writes are not switched"));
    }
    if (writesSwitched && frozen < forward) {
      out.add(new Violation("NOT_FROZEN_AFTER_WRITES_SWITCHED", (forward - frozen) + " of " + forward
          + " streams of " + info.workflow() + " are not FROZEN although writes are switched"));
    }
    int reverse = 0;
    int reverseFrozen = 0;
    boolean journal = false;
    for (String shard : info.sourceShards()) {
      ShardRef source = new ShardRef(info.sourceKeyspace(), shard);
      PrimaryPorts ep = services.primary(source);
      for (Stream s : ep.streams().read(source, info.reverseWorkflow())) {
        reverse++;
        if (s.isFrozen()) {
          reverseFrozen++;
        }
      }
      journal |= ep.journals().read(source, info.migrationId()).isPresent();
    }
    if (writesSwitched && !journal) {
      out.add(new Violation("JOURNAL_MISSING", "writes are switched but no source primary has journal "
          + info.migrationId()));
    }
    if (writesSwitched && reverse == 0) {
      out.add(new Violation("REVERSE_STREAMS_MISSING", "writes are switched but " + info.sourceKeyspace()
          + " has no streams of " + info.reverseWorkflow()));
    }
    // Writes back on the source with reverse streams means a ReverseTraffic ran, which froze them
    // (the forward journal is gone with the forward streams it recreated); unfrozen ones mean the
    // reverse streams were made without a switch, or a reverse left them running
    if (reverse > 0 && !writesSwitched && reverseFrozen == 0) {
      out.add(new Violation("REVERSE_STREAMS_WITHOUT_SWITCH", reverse + " streams of " + info.reverseWorkflow()
          + " run although writes are on " + info.sourceKeyspace() + " and were not switched back"));
    } else if (reverse > 0 && (writesSwitched ? reverseFrozen > 0 : reverseFrozen < reverse)) {
      out.add(new Violation("REVERSE_STREAMS_FROZEN_STATE", reverseFrozen + " of " + reverse + " streams of "
          + info.reverseWorkflow() + " are FROZEN; expected " + (writesSwitched ? "none" : "all")
          + " with writes on " + (writesSwitched ? info.targetKeyspace() : info.sourceKeyspace())));
    }
    return forward + " streams (" + frozen + " FROZEN), " + reverse + " reverse (" + reverseFrozen + " FROZEN)"
        + (journal ? ", journal" : "");
  }

  // ---- locks ---------------------------------------------------------------------------------

  private void checkLocks(Set<String> dirs, EndedExecutions ended, List<Violation> out) {
    for (String dir : dirs) {
      for (KeyValue kv : locksUnder(dir)) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        if (kv.getLease() == 0) {
          out.add(new Violation("LOCK_KEY_WITHOUT_LEASE", key + " has no lease: it never expires and blocks "
              + "every later lock of " + dir));
          continue;
        }
        long ttl = call(etcd.getLeaseClient().timeToLive(kv.getLease(), LeaseOption.DEFAULT)).getTTL();
        // etcd deletes a lease's keys when it expires, atomically: a key read before its lease ran
        // out is simply gone now, which is no violation. Only a key still there is one.
        if (ttl <= 0 && stillThere(kv)) {
          out.add(new Violation("LOCK_KEY_LEASE_EXPIRED", key + " is attached to lease " + kv.getLease()
              + " which is no longer alive"));
          continue;
        }
        LockContents.parse(kv.getValue().toString(StandardCharsets.UTF_8))
            .filter(c -> c.temporalWorkflowId() != null)
            .filter(c -> ended.hasEnded(c.temporalWorkflowId(), c.temporalRunId()))
            .filter(c -> stillThere(kv))
            .ifPresent(c -> out.add(new Violation("LOCK_KEY_OF_ENDED_WORKFLOW", key + " is still held (lease "
                + kv.getLease() + ") for " + c.temporalWorkflowId() + "/" + c.temporalRunId()
                + ", which has ended: " + c.describe())));
      }
    }
  }

  /** The key exists now with the same creation (the lock was not released and taken again meanwhile). */
  private boolean stillThere(KeyValue kv) {
    List<KeyValue> now = call(etcd.getKVClient().get(kv.getKey())).getKvs();
    return !now.isEmpty() && now.get(0).getCreateRevision() == kv.getCreateRevision();
  }

  private List<KeyValue> locksUnder(String dir) {
    ByteSequence prefix = ByteSequence.from(TopoPaths.locksPrefix(dir), StandardCharsets.UTF_8);
    return call(etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())).getKvs();
  }

  private static <T> T call(CompletableFuture<T> f) {
    try {
      return f.get(ETCD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while reading etcd", e);
    } catch (ExecutionException | TimeoutException e) {
      throw PointsmanException.unavailable("reading etcd failed", e);
    }
  }
}
