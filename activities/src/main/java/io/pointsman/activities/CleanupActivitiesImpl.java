package io.pointsman.activities;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.UnfinishedCleanup;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.PrimaryPorts;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.TablesPort;
import io.pointsman.engine.switching.MigrateWorkflows;
import io.pointsman.engine.switching.TopologySwitcher;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.VSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Complete's and Cancel's steps on the real topology and primaries; each converges when rerun. */
public final class CleanupActivitiesImpl implements CleanupActivities {
  private static final Logger log = LoggerFactory.getLogger(CleanupActivitiesImpl.class);
  private static final Duration BARRIER_TIMEOUT = Duration.ofSeconds(30);

  private final Services services;
  private final TopologySwitcher topology;
  private final MigrateWorkflows migrates;

  public CleanupActivitiesImpl(Services services) {
    this.services = services;
    this.topology = new TopologySwitcher(services.store());
    this.migrates = new MigrateWorkflows(services.store(), services::primary, topology);
  }

  @Override
  public void dropSources(MigrationInfo info, boolean renameTables, LockSet locks) {
    ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        // No reverse stream may write into the tables being dropped, nor outlive its source shard.
        deleteReverseStreams(info, locks);
        hb.checkCancelled();
        // A switch back and forth leaves the target's barrier dormant (allowTargetWrites only
        // flips it): the target takes the writes now, and keeps no barrier.
        for (String shard : info.targetShards()) {
          ShardRef target = target(info, shard);
          services.primary(target).writeGate().removeDormant(target, scope(info), locks, BARRIER_TIMEOUT);
          hb.checkCancelled();
        }
        if (info.migrationType() == MigrationType.TABLES) {
          if (!info.sourceIgnored()) {
            dropSourceTables(info, renameTables, locks, hb);
            topology.removeDeniedTables(info.sourceKeyspace(), info.sourceShards(), info.tables(), locks);
          }
          topology.removeDeniedTables(info.targetKeyspace(), info.targetShards(), info.tables(), locks);
          if (!info.sourceIgnored()) {
            refresh(info.sourceKeyspace(), info.sourceShards());
          }
          refresh(info.targetKeyspace(), info.targetShards());
          topology.rebuildSrvVSchema(List.of(), locks);
          return;
        }
        deleteSourceShards(info, locks);
      }
    });
  }

  /** The moved tables dropped (or renamed) on the source primaries, then taken out of the source VSchema. */
  private void dropSourceTables(MigrationInfo info, boolean renameTables, LockSet locks, Heartbeater hb) {
    for (String shard : info.sourceShards()) {
      ShardRef source = source(info, shard);
      // Writes stay denied until the tables are gone, as in Vitess (the denied tables go last).
      TablesPort tables = services.primary(source).tables();
      List<String> done = renameTables ? tables.rename(source, info.tables(), locks)
          : tables.drop(source, info.tables(), locks);
      log.info("{} on {}/{}: {}", renameTables ? "renamed" : "dropped", info.sourceKeyspace(), shard,
          Shown.list(done));
      hb.checkCancelled();
    }
    removeFromVSchema(info.sourceKeyspace(), info.tables(), locks);
  }

  @Override
  public void dropTargets(MigrationInfo info, boolean keepData, LockSet locks) {
    ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        for (String shard : info.targetShards()) {
          ShardRef target = target(info, shard);
          services.primary(target).streams().stop(target, info.workflow(), "workflow cancelled", locks);
        }
        // A switch that failed before its journal and could not undo its barrier leaves the
        // sources refusing writes. Cancel runs only while the writes are not switched (and no
        // journal exists), so the sources are where writes go: they must take them again. A
        // source that is ignored is left as it is, barrier and denied tables included.
        for (String shard : info.sourceIgnored() ? List.<String>of() : info.sourceShards()) {
          ShardRef source = source(info, shard);
          services.primary(source).writeGate().allow(source, scope(info), locks, BARRIER_TIMEOUT);
          hb.checkCancelled();
        }
        if (info.migrationType() == MigrationType.SHARDS) {
          topology.allowSourceWrites(info, locks);
          refresh(info.sourceKeyspace(), info.sourceShards());
        }
        if (!keepData) {
          for (String shard : info.targetShards()) {
            ShardRef target = target(info, shard);
            PrimaryPorts at = services.primary(target);
            // A Reshard's tables are every table of the target database; its table list is the
            // whole-keyspace filter, never a table name. A rerun finds none left, and drops nothing.
            List<String> drop = info.migrationType() == MigrationType.TABLES ? info.tables()
                : at.tables().baseTables(target);
            at.writeGate().allow(target, scope(info), locks, BARRIER_TIMEOUT);
            at.tables().drop(target, drop, locks);
            hb.checkCancelled();
          }
          if (info.migrationType() == MigrationType.TABLES) {
            VSchema target = services.store().get(services.store().keys().vschema(info.targetKeyspace()))
                .map(v -> v.value()).orElse(null);
            // A sharded target's VSchema is written by its users; Vitess leaves it alone, and so do we.
            if (target != null && !target.sharded()) {
              removeFromVSchema(info.targetKeyspace(), info.tables(), locks);
            }
          }
        }
        if (info.migrationType() == MigrationType.TABLES) {
          topology.removeDeniedTables(info.targetKeyspace(), info.targetShards(), info.tables(), locks);
          if (!info.sourceIgnored()) {
            topology.removeDeniedTables(info.sourceKeyspace(), info.sourceShards(), info.tables(), locks);
          }
          refresh(info.targetKeyspace(), info.targetShards());
          if (!info.sourceIgnored()) {
            refresh(info.sourceKeyspace(), info.sourceShards());
          }
        } else {
          topology.removeIdleTabletControls(info, locks);
        }
        topology.rebuildSrvVSchema(List.of(), locks);
      }
    });
  }

  @Override
  public void deleteStreams(MigrationInfo info, LockSet locks) {
    ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        deleteReverseStreams(info, locks);
        hb.checkCancelled();
        for (String shard : info.targetShards()) {
          ShardRef target = target(info, shard);
          services.primary(target).streams().delete(target, info.workflow(), locks);
        }
      }
    });
  }

  @Override
  public void deleteRoutingRules(MigrationInfo info, LockSet locks) {
    ActivityFailures.translate(() -> {
      if (info.migrationType() == MigrationType.TABLES) {
        topology.deleteRoutingRules(info, locks);
      }
    });
  }

  @Override
  public MigrateWorkflow readMigrateWorkflow(String targetKeyspace, String workflow) {
    return ActivityFailures.translate(() -> migrates.read(targetKeyspace, workflow).orElse(null));
  }

  @Override
  public void checkMigrateComplete(MigrateWorkflow migrate) {
    ActivityFailures.translate(() -> migrates.checkComplete(migrate));
  }

  @Override
  public void deleteMigrateStreams(MigrateWorkflow migrate, LockSet locks) {
    ActivityFailures.translate(() -> migrates.deleteStreams(migrate, locks));
  }

  @Override
  public void addMigratedTables(MigrateWorkflow migrate, LockSet locks) {
    ActivityFailures.translate(() -> migrates.addTables(migrate, locks));
  }

  @Override
  public void dropMigratedTables(MigrateWorkflow migrate, LockSet locks) {
    ActivityFailures.translate(() -> {
      try (Heartbeater hb = Heartbeater.start()) {
        migrates.dropTables(migrate, locks);
      }
    });
  }

  @Override
  public UnfinishedCleanup readUnfinishedCleanup(String targetKeyspace, String workflow) {
    return ActivityFailures.translate(() -> services.store()
        .get(services.store().keys().unfinishedCleanup(targetKeyspace, workflow)).map(Versioned::value).orElse(null));
  }

  @Override
  public void recordUnfinishedCleanup(UnfinishedCleanup cleanup, LockSet locks) {
    ActivityFailures.translate(() -> {
      TopologyStore store = services.store();
      store.upsert(store.keys().unfinishedCleanup(cleanup.info().targetKeyspace(), cleanup.info().workflow()),
          before -> cleanup, locks);
    });
  }

  @Override
  public void deleteUnfinishedCleanup(String targetKeyspace, String workflow, LockSet locks) {
    ActivityFailures.translate(() -> {
      services.store().delete(services.store().keys().unfinishedCleanup(targetKeyspace, workflow), locks);
    });
  }

  /**
   * Has the shards' primaries apply the denied tables just removed from their records: a vttablet
   * keeps enforcing what it last read until told to read again (nothing to do on direct MySQL).
   */
  private void refresh(String keyspace, List<String> shards) {
    for (String shard : shards) {
      ShardRef ref = new ShardRef(keyspace, shard);
      services.primary(ref).writeGate().refresh(ref);
    }
  }

  /** The reverse workflow's streams on the source shards that still exist; none when the source is ignored. */
  private void deleteReverseStreams(MigrationInfo info, LockSet locks) {
    if (info.sourceIgnored()) {
      return;
    }
    for (String shard : info.sourceShards()) {
      if (sourceShardExists(info, shard)) {
        ShardRef source = source(info, shard);
        services.primary(source).streams().delete(source, info.reverseWorkflow(), locks);
      }
    }
  }

  private void removeFromVSchema(String keyspace, List<String> names, LockSet locks) {
    TopologyStore store = services.store();
    if (store.get(store.keys().vschema(keyspace)).isEmpty()) {
      return;
    }
    store.update(store.keys().vschema(keyspace), v -> {
      Map<String, io.pointsman.engine.topo.model.VSchemaTable> kept = new TreeMap<>(v.tables());
      names.forEach(kept::remove);
      return new VSchema(v.sharded(), v.vindexes(), kept);
    }, locks);
  }

  /** Reshard Complete: the source shards go, as Vitess's DeleteShard does, once nothing serves from them. */
  private void deleteSourceShards(MigrationInfo info, LockSet locks) {
    TopologyStore store = services.store();
    for (String cell : store.listCells()) {
      SrvKeyspace srv = store.get(store.keys().srvKeyspace(cell, info.sourceKeyspace())).map(v -> v.value())
          .orElse(null);
      if (srv == null) {
        continue;
      }
      for (var p : srv.partitions()) {
        for (var ref : p.shardReferences()) {
          if (info.sourceShards().contains(ref.name())) {
            throw PointsmanException.failedPrecondition("shard " + info.sourceKeyspace() + "/" + ref.name()
                + " still serves " + p.servedType() + " in cell " + cell + "; switch all traffic before Complete");
          }
        }
      }
    }
    for (String shard : info.sourceShards()) {
      var current = store.get(store.keys().shard(info.sourceKeyspace(), shard));
      if (current.isEmpty()) {
        continue;
      }
      Shard record = current.get().value();
      if (record.isPrimaryServing()) {
        throw PointsmanException.failedPrecondition("shard " + info.sourceKeyspace() + "/" + shard
            + " is still the serving primary; switch writes before Complete");
      }
      List<TabletAlias> tablets = tabletsOf(info.sourceKeyspace(), shard);
      if (record.primaryAlias() != null && !tablets.contains(record.primaryAlias())) {
        tablets.add(record.primaryAlias());
      }
      for (TabletAlias alias : tablets) {
        store.delete(store.keys().tablet(alias), locks);
      }
      store.delete(store.keys().shard(info.sourceKeyspace(), shard), locks);
      log.info("deleted shard {}/{} and its tablet records {}", info.sourceKeyspace(), shard, tablets);
    }
  }

  /**
   * Every tablet record of a shard in every cell, as Vitess's recursive DeleteShard finds them:
   * replicas and rdonly tablets too, not only the primary.
   */
  private List<TabletAlias> tabletsOf(String keyspace, String shard) {
    TopologyStore store = services.store();
    List<TabletAlias> found = new ArrayList<>();
    for (String cell : store.listCells()) {
      for (TabletAlias alias : store.listTablets(cell)) {
        store.get(store.keys().tablet(alias)).map(Versioned::value)
            .filter(t -> keyspace.equals(t.keyspace()) && shard.equals(t.shard()))
            .ifPresent(t -> found.add(alias));
      }
    }
    return found;
  }

  /** The scope of the barrier a switch of this workflow raises: its tables, or a Reshard's whole database. */
  private static WriteScope scope(MigrationInfo info) {
    return info.migrationType() == MigrationType.TABLES ? WriteScope.tables(info.tables()) : WriteScope.wholeDatabase();
  }

  private boolean sourceShardExists(MigrationInfo info, String shard) {
    return services.store().get(services.store().keys().shard(info.sourceKeyspace(), shard)).isPresent();
  }

  private static ShardRef source(MigrationInfo info, String shard) {
    return new ShardRef(info.sourceKeyspace(), shard);
  }

  private static ShardRef target(MigrationInfo info, String shard) {
    return new ShardRef(info.targetKeyspace(), shard);
  }
}
