package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Complete and Cancel of a Migrate workflow, as Vitess finalizes one (docs/migrate.md): on the target
 * keyspace alone, since its source is outside the cluster. Complete adds its tables to the target
 * VSchema and lifts their denial there; Cancel drops them; both delete its streams. Each step converges
 * when run again and is fenced with the caller's locks.
 */
public final class MigrateWorkflows {
  private final TopologyStore store;
  private final Function<ShardRef, PrimaryPorts> primaries;
  private final TopologySwitcher topology;

  public MigrateWorkflows(TopologyStore store, Function<ShardRef, PrimaryPorts> primaries, TopologySwitcher topology) {
    this.store = store;
    this.primaries = primaries;
    this.topology = topology;
  }

  /** The workflow when its streams on the target primaries are a Migrate's; empty otherwise (or when it has none). */
  public Optional<MigrateWorkflow> read(String targetKeyspace, String workflow) {
    List<String> shards = new ArrayList<>(store.listShards(targetKeyspace));
    shards.sort(MigrationReader.SHARD_ORDER);
    List<List<Stream>> read = FanOut.map(shards, shard -> {
      Shard record = store.getRequired(store.keys().shard(targetKeyspace, shard)).value();
      if (record.primaryAlias() == null) {
        return List.<Stream>of();
      }
      ShardRef ref = new ShardRef(targetKeyspace, shard);
      return primaries.apply(ref).streams().read(ref, workflow);
    });
    List<String> withStreams = new ArrayList<>();
    List<Stream> streams = new ArrayList<>();
    for (int i = 0; i < shards.size(); i++) {
      if (!read.get(i).isEmpty()) {
        withStreams.add(shards.get(i));
        streams.addAll(read.get(i));
      }
    }
    if (streams.isEmpty() || streams.stream().noneMatch(MigrateWorkflows::isMigrate)) {
      return Optional.empty();
    }
    TreeSet<String> tables = new TreeSet<>();
    for (Stream s : streams) {
      s.source().filter().rules().stream().filter(r -> !r.isWildcard() && !r.isExclude())
          .map(BinlogSource.Rule::match).forEach(tables::add);
    }
    BinlogSource first = streams.get(0).source();
    String external = !first.externalCluster().isEmpty() ? first.externalCluster() : first.externalMysql();
    return Optional.of(new MigrateWorkflow(targetKeyspace, workflow, first.keyspace(), external, List.copyOf(tables),
        withStreams));
  }

  /** Refuses completing when a sharded target's VSchema lacks tables it imports; Vitess cannot add those either. */
  public void checkComplete(MigrateWorkflow m) {
    VSchema vschema = vschema(m.targetKeyspace());
    if (vschema == null) {
      throw PointsmanException.failedPrecondition("cannot complete Migrate workflow " + m.qualifiedName()
          + ": keyspace " + m.targetKeyspace() + " has no VSchema; nothing was changed");
    }
    List<String> missing = m.tables().stream().filter(t -> !vschema.tables().containsKey(t)).toList();
    if (vschema.sharded() && !missing.isEmpty()) {
      throw PointsmanException.failedPrecondition("cannot complete Migrate workflow " + m.qualifiedName()
          + ": keyspace " + m.targetKeyspace() + " is sharded and its VSchema lacks " + missing + "; add them with"
          + " their vindexes (ApplyVSchema) first, as Vitess asks; nothing was changed");
    }
  }

  public void deleteStreams(MigrateWorkflow m, LockSet locks) {
    FanOut.forEach(m.targetShards(), shard -> {
      ShardRef ref = new ShardRef(m.targetKeyspace(), shard);
      primaries.apply(ref).streams().delete(ref, m.workflow(), locks);
    });
  }

  /** Complete: the imported tables join the target VSchema (plain tables, the keyspace being unsharded). */
  public void addTables(MigrateWorkflow m, LockSet locks) {
    checkComplete(m);
    store.update(store.keys().vschema(m.targetKeyspace()), v -> {
      Map<String, VSchemaTable> tables = new TreeMap<>(v.tables());
      m.tables().forEach(t -> tables.putIfAbsent(t, VSchemaTable.plain()));
      return new VSchema(v.sharded(), v.vindexes(), tables);
    }, locks);
    allowWrites(m, locks);
    topology.rebuildSrvVSchema(List.of(), locks);
  }

  /**
   * Migrate create denies the imported tables on the target's primaries, as MoveTables does until
   * its switch. Vitess 24's Complete leaves them denied (measured: vtgate then refuses every query
   * of them, "enforce denied tables"); the import is finished, so pointsman lifts the denial.
   */
  private void allowWrites(MigrateWorkflow m, LockSet locks) {
    topology.removeDeniedTables(m.targetKeyspace(), m.targetShards(), m.tables(), locks);
    FanOut.forEach(m.targetShards(), shard -> {
      ShardRef ref = new ShardRef(m.targetKeyspace(), shard);
      primaries.apply(ref).writeGate().refresh(ref);
    });
  }

  /** Cancel: the imported tables are dropped on the target primaries and leave the target VSchema. */
  public void dropTables(MigrateWorkflow m, LockSet locks) {
    FanOut.forEach(m.targetShards(), shard -> {
      ShardRef ref = new ShardRef(m.targetKeyspace(), shard);
      primaries.apply(ref).tables().drop(ref, m.tables(), locks);
    });
    if (vschema(m.targetKeyspace()) != null) {
      store.update(store.keys().vschema(m.targetKeyspace()), v -> {
        Map<String, VSchemaTable> tables = new TreeMap<>(v.tables());
        m.tables().forEach(tables::remove);
        return new VSchema(v.sharded(), v.vindexes(), tables);
      }, locks);
    }
    allowWrites(m, locks); // no denial left behind for tables that are gone
    topology.rebuildSrvVSchema(List.of(), locks);
  }

  private VSchema vschema(String keyspace) {
    return store.get(store.keys().vschema(keyspace)).map(Versioned::value).orElse(null);
  }

  private static boolean isMigrate(Stream s) {
    return s.workflowType() == WorkflowType.MIGRATE || !s.source().externalCluster().isEmpty()
        || !s.source().externalMysql().isEmpty();
  }
}
