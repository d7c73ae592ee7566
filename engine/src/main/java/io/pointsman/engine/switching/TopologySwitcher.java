package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.RecordWrite;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.CellsAlias;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvKeyspace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Every topology change of a switch, for both migration types, each one guarded by the LockSet and
 * by the revisions it read (never blind, unlike Vitess's routing-rule and SrvKeyspace writes). Each
 * method is idempotent: running it again after it took effect changes nothing.
 */
public final class TopologySwitcher {
  private final TopologyStore store;
  private final SrvVSchemaBuilder srvVSchema;

  public TopologySwitcher(TopologyStore store) {
    this.store = store;
    this.srvVSchema = new SrvVSchemaBuilder(store);
  }

  /**
   * The cells to act on: the ones given, or every cell of the topology. A given name that is not a
   * cell but a CellsAlias stands for its cells, as in vtctldclient's {@code --cells}.
   */
  public List<String> cells(List<String> requested) {
    if (requested.isEmpty()) {
      return store.listCells();
    }
    List<String> known = store.listCells();
    Set<String> out = new LinkedHashSet<>();
    for (String name : requested) {
      if (known.contains(name)) {
        out.add(name);
        continue;
      }
      Optional<Versioned<CellsAlias>> alias = store.get(store.keys().cellsAlias(name));
      if (alias.isPresent()) {
        out.addAll(alias.get().value().cells());
      } else {
        out.add(name); // neither: the caller's read of the cell's records names it
      }
    }
    return List.copyOf(out);
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Vitess's getWorkflowState: read state per cell from the serving records, writes from the global ones. */
  public WorkflowState state(MigrationInfo info, List<String> requestedCells) {
    List<String> cells = cells(requestedCells);
    List<String> replicaSwitched = new ArrayList<>();
    List<String> replicaNot = new ArrayList<>();
    List<String> rdonlySwitched = new ArrayList<>();
    List<String> rdonlyNot = new ArrayList<>();
    for (String cell : cells) {
      (readsSwitched(info, cell, TabletType.REPLICA) ? replicaSwitched : replicaNot).add(cell);
      (readsSwitched(info, cell, TabletType.RDONLY) ? rdonlySwitched : rdonlyNot).add(cell);
    }
    MirrorRules mirror = info.migrationType() == MigrationType.TABLES ? mirrorRules() : MirrorRules.EMPTY;
    return new WorkflowState(info.workflow(), info.sourceKeyspace(), info.targetKeyspace(), info.migrationType(),
        replicaSwitched, replicaNot, rdonlySwitched, rdonlyNot, writesSwitched(info),
        mirror.mirrors(info.tables(), List.of(TabletType.REPLICA, TabletType.RDONLY), info.sourceKeyspace(),
            info.targetKeyspace()),
        mirror.mirrors(info.tables(), List.of(TabletType.PRIMARY), info.sourceKeyspace(), info.targetKeyspace()));
  }

  private boolean readsSwitched(MigrationInfo info, String cell, TabletType type) {
    if (info.migrationType() == MigrationType.TABLES) {
      RoutingRules rules = store.get(store.keys().srvVSchema(cell)).map(v -> v.value().routingRules())
          .orElse(RoutingRules.EMPTY);
      return RoutingRuleEdits.readsSwitched(rules, info.tables(), type, info.sourceKeyspace());
    }
    return store.get(store.keys().srvKeyspace(cell, info.targetKeyspace()))
        .map(v -> SrvKeyspaceEdits.readsSwitched(v.value(), type, info.sourceShards().get(0)))
        .orElse(false);
  }

  private boolean writesSwitched(MigrationInfo info) {
    if (info.migrationType() == MigrationType.TABLES) {
      RoutingRules rules = store.get(store.keys().routingRules()).map(Versioned::value).orElse(RoutingRules.EMPTY);
      return RoutingRuleEdits.writesSwitched(rules, info.tables(), info.sourceKeyspace());
    }
    Shard first = store.getRequired(store.keys().shard(info.sourceKeyspace(), info.sourceShards().get(0))).value();
    return !first.isPrimaryServing();
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** Points reads of the types at the target (FORWARD) or the source (BACKWARD) in the cells. */
  public void switchReads(MigrationInfo info, List<TabletType> types, List<String> requestedCells, Direction direction,
      LockSet locks) {
    List<String> cells = cells(requestedCells);
    if (info.migrationType() == MigrationType.TABLES) {
      // As Vitess, in either direction: the moved tables stop being mirrored for these types.
      String to = direction == Direction.FORWARD ? info.targetKeyspace() : info.sourceKeyspace();
      srvVSchema.rebuild(rules -> {
        RoutingRules r = rules;
        for (TabletType type : types) {
          r = RoutingRuleEdits.switchReads(r, info.tables(), type, info.sourceKeyspace(), info.targetKeyspace(), to);
        }
        return r;
      }, mirrorRemoval(info, types), cells, locks);
      return;
    }
    List<String> from = direction == Direction.FORWARD ? info.sourceShards() : info.targetShards();
    List<String> to = direction == Direction.FORWARD ? info.targetShards() : info.sourceShards();
    for (TabletType type : types) {
      updateSrvKeyspaces(info.targetKeyspace(), cells, srv -> {
        SrvKeyspace s = SrvKeyspaceEdits.setQueryServiceDisabled(srv, type, from, true);
        s = SrvKeyspaceEdits.setQueryServiceDisabled(s, type, to, false);
        return SrvKeyspaceEdits.migrateServedType(s, type, to, from);
      }, locks);
    }
  }

  /**
   * After a read switch of a MoveTables: while any of its tables is still mirrored to the target
   * (for any tablet type), the target primaries serve reads of the denied tables (allow_reads of
   * their PRIMARY tablet control, which vtctldclient MirrorTraffic sets); once none is, they refuse
   * them again. Vitess's switch sets it so when it removes mirror rules. Read from the records as
   * they are, so a re-run after a crash between the switch's commits sets it too.
   *
   * @return whether a target shard record changed (the activities refresh the tablets every time: a
   *     run before may have changed it and failed to refresh them)
   */
  public boolean allowTargetReadsWhileMirrored(MigrationInfo info, LockSet locks) {
    if (info.migrationType() != MigrationType.TABLES) {
      return false;
    }
    return allowTargetReads(info, mirrorRules().mirrorsAny(info.tables(), info.sourceKeyspace(), info.targetKeyspace()),
        locks);
  }

  /**
   * Sets allow_reads of the target shards' PRIMARY tablet control (where there is one: as Vitess,
   * none is created); whether a record changed.
   */
  private boolean allowTargetReads(MigrationInfo info, boolean allow, LockSet locks) {
    List<RecordWrite<?>> writes = new ArrayList<>();
    for (Versioned<Shard> target : FanOut.map(info.targetShards(),
        shard -> store.getRequired(store.keys().shard(info.targetKeyspace(), shard)))) {
      Shard edited = target.value().withPrimaryAllowReads(allow);
      if (!edited.equals(target.value())) {
        writes.add(RecordWrite.replace(target, edited));
      }
    }
    if (writes.isEmpty()) {
      return false;
    }
    store.commit(writes, locks);
    return true;
  }

  // ---- mirroring -----------------------------------------------------------------------------

  /**
   * The global mirror rules as vtctldclient MirrorTraffic of {@code types} at {@code percent} would
   * leave them (read-only); refuses, as Vitess does, when only some of the workflow's rules for
   * these types exist.
   */
  public MirrorRules mirrorRulesAfter(MigrationInfo info, List<TabletType> types, float percent) {
    return MirrorRuleEdits.mirror(mirrorRules(), info.tables(), types, percent, info.sourceKeyspace(),
        info.targetKeyspace());
  }

  /**
   * Before mirror rules for a MoveTables are served: lets the target primaries serve reads of the
   * tables they deny, for the mirrored queries (Vitess sets it before it rebuilds, so no mirrored
   * query meets a refusal). Whether a record changed; the caller refreshes the tablets either way,
   * since a run before may have changed it and failed to refresh them.
   */
  public boolean allowTargetReadsForMirroring(MigrationInfo info, LockSet locks) {
    return allowTargetReads(info, true, locks);
  }

  /**
   * vtctldclient MirrorTraffic's topology change: the moved tables' mirror rules of {@code types}
   * set to {@code percent} (removed at 0) and every cell's SrvVSchema rebuilt, in one fenced commit
   * (Vitess saves the rules, then rebuilds). Idempotent; refused before any change as
   * {@link #mirrorRulesAfter} refuses. The target primaries' allow_reads is the caller's, before
   * ({@link #allowTargetReadsForMirroring}) and after ({@link #allowTargetReadsWhileMirrored}).
   */
  public void mirrorTraffic(MigrationInfo info, List<TabletType> types, float percent, LockSet locks) {
    srvVSchema.rebuild(UnaryOperator.identity(), rules -> MirrorRuleEdits.mirror(rules, info.tables(), types, percent,
        info.sourceKeyspace(), info.targetKeyspace()), List.of(), locks);
  }

  /** The global mirror rules; none when the record does not exist (Vitess writes none until rules are applied). */
  private MirrorRules mirrorRules() {
    return store.get(store.keys().mirrorRules()).map(Versioned::value).orElse(MirrorRules.EMPTY);
  }

  // ---- writes --------------------------------------------------------------------------------

  /**
   * Stops writes on the source in the topology. TABLES: the moved tables join the source shards'
   * PRIMARY denied tables and leave the target shards' (Vitess lifts the target's denial in the same
   * breath: routing still points at the source). SHARDS: the source shards' PRIMARY query service
   * is disabled in every cell's SrvKeyspace.
   */
  public void stopSourceWrites(MigrationInfo info, LockSet locks) {
    setSourceWritesStopped(info, true, locks);
  }

  /** Exactly undoes {@link #stopSourceWrites}. */
  public void allowSourceWrites(MigrationInfo info, LockSet locks) {
    setSourceWritesStopped(info, false, locks);
  }

  /** Whether every shard record of a TABLES switch already says what {@link #stopSourceWrites} makes it say. */
  private boolean sourceWritesStopped(MigrationInfo info) {
    Map<RecordKey<Shard>, UnaryOperator<Shard>> edits = sourceWritesEdits(info, true);
    List<RecordKey<Shard>> keys = List.copyOf(edits.keySet());
    return FanOut.map(keys, key -> store.get(key)).stream().allMatch(read -> read.isPresent()
        && edits.get(read.get().key()).apply(read.get().value()).equals(read.get().value()));
  }

  /** A TABLES switch's denied-table edits: the source shards deny the tables and the target's do not, or the reverse. */
  private Map<RecordKey<Shard>, UnaryOperator<Shard>> sourceWritesEdits(MigrationInfo info, boolean stopped) {
    Map<RecordKey<Shard>, UnaryOperator<Shard>> edits = new LinkedHashMap<>();
    denyEdits(edits, info.sourceKeyspace(), info.sourceShards(), info.tables(), !stopped);
    denyEdits(edits, info.targetKeyspace(), info.targetShards(), info.tables(), stopped);
    return edits;
  }

  private void setSourceWritesStopped(MigrationInfo info, boolean stopped, LockSet locks) {
    if (info.migrationType() == MigrationType.TABLES) {
      // Source and target shard records in one commit: each etcd read and write of a shard that
      // lists a thousand denied tables counts inside the write window.
      Map<RecordKey<Shard>, UnaryOperator<Shard>> edits = sourceWritesEdits(info, stopped);
      // Every cell's SrvVSchema written again, as it is, in that commit. vtgate learns that a
      // MoveTables is switching writes only from a SrvVSchema change, on which it reads the shard
      // records: told now, it sees the denied tables with the routing rules not yet moved, and
      // keeps the writes it buffers until the rules move. Not told, the next health report of the
      // source primary (every refresh sends one) ends its buffering before the switch has, and the
      // writes it releases meet the denied tables again and fail (vitessio/vitess#15707).
      List<RecordKey<?>> cells = new ArrayList<>();
      store.listCells().forEach(cell -> cells.add(store.keys().srvVSchema(cell)));
      store.updateAll(edits, cells, locks);
    } else {
      updateSrvKeyspaces(info.sourceKeyspace(), List.of(), srv ->
          SrvKeyspaceEdits.setQueryServiceDisabled(srv, TabletType.PRIMARY, info.sourceShards(), stopped), locks);
    }
  }

  /** Lets the target take writes: TABLES as {@link #stopSourceWrites} (idempotent); SHARDS enables the targets. */
  public void allowTargetWrites(MigrationInfo info, LockSet locks) {
    if (info.migrationType() == MigrationType.TABLES) {
      // stopSourceWrites has normally done it all. The shard records are read alone first: the
      // edit would also read each cell's SrvVSchema beside them (a third of a megabyte at a
      // thousand tables, inside the write window) for a rewrite that then does not happen.
      if (!sourceWritesStopped(info)) {
        stopSourceWrites(info, locks);
      }
    } else {
      updateSrvKeyspaces(info.targetKeyspace(), List.of(), srv ->
          SrvKeyspaceEdits.setQueryServiceDisabled(srv, TabletType.PRIMARY, info.targetShards(), false), locks);
    }
  }

  /**
   * Points writes at the target. TABLES: routing rules ({@code t} and {@code src.t} to
   * {@code tgt.t}) and SrvVSchema in every cell, in one commit. SHARDS: source shards stop and
   * target shards start serving PRIMARY, in the shard records and in every cell's SrvKeyspace.
   */
  public void changeRouting(MigrationInfo info, LockSet locks) {
    if (info.migrationType() == MigrationType.TABLES) {
      SrvVSchemaBuilder.Rebuilt rebuilt = srvVSchema.rebuild(
          rules -> RoutingRuleEdits.switchWrites(rules, info.tables(), info.sourceKeyspace(), info.targetKeyspace()),
          mirrorRemoval(info, List.of(TabletType.PRIMARY)), List.of(), locks);
      // Once more, unchanged, after the rules moved. vtgate clears its plan cache on every
      // SrvVSchema change, but a write planned against the old rules while the move was being
      // applied can put its plan back in the cache; it then sends every such write to the side
      // whose writes are denied until something clears the cache again (vtgate's own comments on
      // plan_execute say so; vtctld leaves it). This change clears it, and ends as switched any
      // buffering of the old side's shards that began meanwhile.
      srvVSchema.rewrite(rebuilt, locks);
      return;
    }
    // Every shard record at once (in the write window, a Reshard 2 → 4 read six in a row here).
    List<Supplier<Optional<RecordWrite<Shard>>>> reads = new ArrayList<>();
    info.sourceShards().forEach(s -> reads.add(() -> shardWrite(info.sourceKeyspace(), s, false)));
    info.targetShards().forEach(s -> reads.add(() -> shardWrite(info.targetKeyspace(), s, true)));
    List<RecordWrite<?>> writes = new ArrayList<>();
    FanOut.map(reads, Supplier::get).forEach(w -> w.ifPresent(writes::add));
    if (!writes.isEmpty()) {
      store.commit(writes, locks);
    }
    updateSrvKeyspaces(info.targetKeyspace(), List.of(),
        srv -> SrvKeyspaceEdits.migrateServedType(srv, TabletType.PRIMARY, info.targetShards(), info.sourceShards()),
        locks);
  }

  private Optional<RecordWrite<Shard>> shardWrite(String keyspace, String shard, boolean serving) {
    Versioned<Shard> v = store.getRequired(store.keys().shard(keyspace, shard));
    return v.value().isPrimaryServing() == serving
        ? Optional.empty()
        : Optional.of(RecordWrite.replace(v, v.value().withPrimaryServing(serving)));
  }

  /**
   * Cancel of a Reshard: once reads are back on the source shards, removes the tablet controls the
   * read switches left on the workflow's shards in every cell's SrvKeyspace (see
   * {@link SrvKeyspaceEdits#dropIdleTabletControls}), so serving looks as it did before the
   * workflow. Vitess leaves them, and its Cancel leaves switched reads switched.
   */
  public void removeIdleTabletControls(MigrationInfo info, LockSet locks) {
    List<String> shards = new ArrayList<>(info.sourceShards());
    shards.addAll(info.targetShards());
    updateSrvKeyspaces(info.targetKeyspace(), List.of(), srv -> SrvKeyspaceEdits.dropIdleTabletControls(srv, shards),
        locks);
  }

  /** Complete/Cancel: removes the workflow's denied tables from the given shards. */
  public void removeDeniedTables(String keyspace, List<String> shards, List<String> tables, LockSet locks) {
    denyTables(keyspace, shards, tables, true, locks);
  }

  /** Complete/Cancel: deletes the nine routing rules of every moved table and rebuilds SrvVSchema. */
  public void deleteRoutingRules(MigrationInfo info, LockSet locks) {
    srvVSchema.rebuild(rules -> RoutingRuleEdits.delete(rules, info.tables(), info.sourceKeyspace(),
        info.targetKeyspace()), List.of(), locks);
  }

  public void rebuildSrvVSchema(List<String> cells, LockSet locks) {
    srvVSchema.rebuild(cells, locks);
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Adds to {@code edits} the denied-table change of each shard; a shard edited twice gets both, in order. */
  private void denyEdits(Map<RecordKey<Shard>, UnaryOperator<Shard>> edits, String keyspace, List<String> shards,
      List<String> tables, boolean remove) {
    for (String shard : shards) {
      UnaryOperator<Shard> edit = s -> s.withDeniedTables(TabletType.PRIMARY, tables, remove);
      edits.merge(store.keys().shard(keyspace, shard), edit, (first, then) -> s -> then.apply(first.apply(s)));
    }
  }

  private void denyTables(String keyspace, List<String> shards, List<String> tables, boolean remove, LockSet locks) {
    Map<RecordKey<Shard>, UnaryOperator<Shard>> edits = new LinkedHashMap<>();
    denyEdits(edits, keyspace, shards, tables, remove);
    store.updateAll(edits, locks);
  }

  /**
   * Vitess's switch removes the moved tables' mirror rules of the switched tablet types (from the
   * workflow's source to its target) before it changes any routing; here in the commit that changes
   * it ({@link SrvVSchemaBuilder#rebuild(UnaryOperator, UnaryOperator, List, LockSet)}). The record is
   * written only when a rule goes, and deleted when none is left, as Vitess leaves no key for no
   * mirror rules. Unlike Vitess, which rebuilds every cell here, a read switch in some cells serves
   * the change in those cells only: a rebuild of the others would also serve them read routing this
   * switch does not give them.
   */
  private static UnaryOperator<MirrorRules> mirrorRemoval(MigrationInfo info, List<TabletType> types) {
    return rules -> MirrorRuleEdits.removeSwitched(rules, info.tables(), types, info.sourceKeyspace(),
        info.targetKeyspace());
  }

  private void updateSrvKeyspaces(String keyspace, List<String> requestedCells, UnaryOperator<SrvKeyspace> edit,
      LockSet locks) {
    List<String> cells = cells(requestedCells);
    List<RecordKey<SrvKeyspace>> present = new ArrayList<>();
    for (String cell : cells) {
      RecordKey<SrvKeyspace> key = store.keys().srvKeyspace(cell, keyspace);
      if (store.get(key).isPresent()) {
        present.add(key); // Vitess skips cells without the record
      }
    }
    if (present.isEmpty()) {
      throw PointsmanException.failedPrecondition("keyspace " + keyspace + " has no SrvKeyspace in cells " + cells);
    }
    store.updateAll(present, edit, locks);
  }
}
