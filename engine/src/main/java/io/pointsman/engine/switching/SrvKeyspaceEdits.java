package io.pointsman.engine.switching;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The SrvKeyspace changes of a Reshard switch, as pure functions (docs/vitess-switching.md §3.3, §5):
 * Vitess's UpdateDisableQueryService and MigrateServedType for one cell's record.
 */
public final class SrvKeyspaceEdits {
  private SrvKeyspaceEdits() {}

  /** Marks the shards' query service disabled or enabled in the partition of one tablet type. */
  public static SrvKeyspace setQueryServiceDisabled(SrvKeyspace srv, TabletType type, List<String> shards,
      boolean disabled) {
    List<KeyspacePartition> partitions = new ArrayList<>();
    boolean found = false;
    for (KeyspacePartition p : srv.partitions()) {
      if (p.servedType() != type) {
        partitions.add(p);
        continue;
      }
      found = true;
      List<ShardTabletControl> controls = new ArrayList<>();
      for (ShardTabletControl c : p.shardTabletControls()) {
        if (!shards.contains(c.name())) {
          controls.add(c);
        }
      }
      for (String shard : shards) {
        controls.add(new ShardTabletControl(shard, KeyRange.ofShard(shard), disabled));
      }
      controls.sort(Comparator.comparing(c -> c.keyRange().start(), Names::compareHexBounds));
      partitions.add(new KeyspacePartition(type, p.shardReferences(), controls));
    }
    if (!found) {
      List<ShardTabletControl> controls =
          shards.stream().map(s -> new ShardTabletControl(s, KeyRange.ofShard(s), disabled)).toList();
      partitions.add(new KeyspacePartition(type, List.of(), controls));
    }
    return new SrvKeyspace(partitions);
  }

  /**
   * Serves a tablet type from {@code add} instead of {@code remove}: references to removed shards
   * go, references to added shards come, ordered by key range. Switching PRIMARY also clears the
   * shard tablet controls of every partition, as Vitess does.
   */
  public static SrvKeyspace migrateServedType(SrvKeyspace srv, TabletType type, List<String> add, List<String> remove) {
    Set<String> removed = Set.copyOf(remove);
    List<KeyspacePartition> partitions = new ArrayList<>();
    boolean found = false;
    for (KeyspacePartition p : srv.partitions()) {
      List<ShardTabletControl> controls = type == TabletType.PRIMARY ? List.of() : p.shardTabletControls();
      if (p.servedType() != type) {
        partitions.add(new KeyspacePartition(p.servedType(), p.shardReferences(), controls));
        continue;
      }
      found = true;
      partitions.add(new KeyspacePartition(type, references(p.shardReferences(), add, removed), controls));
    }
    if (!found) {
      partitions.add(new KeyspacePartition(type, references(List.of(), add, removed), List.of()));
    }
    return new SrvKeyspace(partitions);
  }

  /**
   * Drops the given shards' tablet controls that do not change serving: those on shards the
   * partition does not reference, and those that do not disable the query service. Read switches
   * leave such controls behind (Vitess's switchShardReads never removes one); a control that
   * disables a referenced shard is kept, whoever set it.
   */
  public static SrvKeyspace dropIdleTabletControls(SrvKeyspace srv, List<String> shards) {
    List<KeyspacePartition> partitions = new ArrayList<>();
    for (KeyspacePartition p : srv.partitions()) {
      Set<String> referenced = new HashSet<>();
      p.shardReferences().forEach(r -> referenced.add(r.name()));
      List<ShardTabletControl> kept = p.shardTabletControls().stream()
          .filter(c -> !shards.contains(c.name()) || (referenced.contains(c.name()) && c.queryServiceDisabled()))
          .toList();
      partitions.add(new KeyspacePartition(p.servedType(), p.shardReferences(), kept));
    }
    return new SrvKeyspace(partitions);
  }

  private static List<ShardReference> references(List<ShardReference> current, List<String> add, Set<String> removed) {
    List<ShardReference> refs = new ArrayList<>();
    for (ShardReference r : current) {
      if (!removed.contains(r.name()) && !add.contains(r.name())) {
        refs.add(r);
      }
    }
    for (String shard : add) {
      refs.add(new ShardReference(shard, KeyRange.ofShard(shard)));
    }
    refs.sort(Comparator.comparing(r -> r.keyRange().start(), Names::compareHexBounds));
    return refs;
  }

  /**
   * Vitess's read state for one served type: not switched while the first source shard is still
   * referenced and either its control says serving or there are no controls at all.
   */
  public static boolean readsSwitched(SrvKeyspace srv, TabletType type, String sourceShard) {
    KeyspacePartition p = srv.partition(type).orElse(null);
    if (p == null) {
      return false;
    }
    boolean referenced = p.shardReferences().stream().anyMatch(r -> r.name().equals(sourceShard));
    if (!referenced) {
      return true;
    }
    if (p.shardTabletControls().isEmpty()) {
      return false;
    }
    return p.shardTabletControls().stream()
        .noneMatch(c -> c.name().equals(sourceShard) && !c.queryServiceDisabled());
  }
}
