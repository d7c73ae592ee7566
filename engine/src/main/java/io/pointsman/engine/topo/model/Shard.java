package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TabletAlias;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** topodata.Shard. */
public record Shard(
    TabletAlias primaryAlias,
    String primaryTermStartTime,
    KeyRange keyRange,
    List<SourceShard> sourceShards,
    List<TabletControl> tabletControls,
    boolean isPrimaryServing) {
  public Shard {
    keyRange = keyRange == null ? KeyRange.FULL : keyRange;
    sourceShards = sourceShards == null ? List.of() : List.copyOf(sourceShards);
    tabletControls = tabletControls == null ? List.of() : List.copyOf(tabletControls);
  }

  public static Shard of(KeyRange keyRange, TabletAlias primary, boolean primaryServing) {
    return new Shard(primary, null, keyRange, List.of(), List.of(), primaryServing);
  }

  public Shard withPrimaryServing(boolean serving) {
    return new Shard(primaryAlias, primaryTermStartTime, keyRange, sourceShards, tabletControls, serving);
  }

  public Shard withPrimary(TabletAlias alias) {
    return new Shard(alias, primaryTermStartTime, keyRange, sourceShards, tabletControls, isPrimaryServing);
  }

  public Optional<TabletControl> tabletControl(TabletType type) {
    return tabletControls.stream().filter(tc -> tc.tabletType() == type).findFirst();
  }

  /** The denied tables for a tablet type (PRIMARY: the tables whose writes are stopped here). */
  public List<String> deniedTables(TabletType type) {
    return tabletControl(type).map(TabletControl::deniedTables).orElse(List.of());
  }

  /**
   * Adds or removes denied tables for a tablet type; removing what is absent and adding what is
   * present are no-ops (Vitess #15963 made removal strict, which broke cancel), and a control left
   * with no tables is dropped. A control keeps its {@code allowReads}: vtctld's denied-table updates
   * clear it, but it is one flag per shard and type, and clearing it for one workflow's switch would
   * also end another's mirrored reads; a read switch sets it from the mirror rules instead.
   */
  public Shard withDeniedTables(TabletType type, List<String> tables, boolean remove) {
    List<TabletControl> controls = new ArrayList<>();
    boolean seen = false;
    for (TabletControl tc : tabletControls) {
      if (tc.tabletType() != type) {
        controls.add(tc);
        continue;
      }
      seen = true;
      Set<String> denied = new LinkedHashSet<>(tc.deniedTables());
      if (remove) {
        tables.forEach(denied::remove);
      } else {
        denied.addAll(tables);
      }
      if (!denied.isEmpty() || tc.frozen()) {
        controls.add(new TabletControl(type, tc.cells(), List.copyOf(denied), tc.frozen(), tc.allowReads()));
      }
    }
    if (!seen && !remove && !tables.isEmpty()) {
      controls.add(new TabletControl(type, List.of(), List.copyOf(new LinkedHashSet<>(tables)), false, false));
    }
    return new Shard(primaryAlias, primaryTermStartTime, keyRange, sourceShards, controls, isPrimaryServing);
  }

  /**
   * Whether the PRIMARY tablet control lets the primary serve reads of its denied tables
   * ({@link TabletControl#allowReads}); a shard without one is left as it is.
   */
  public Shard withPrimaryAllowReads(boolean allow) {
    List<TabletControl> controls = tabletControls.stream()
        .map(tc -> tc.tabletType() != TabletType.PRIMARY || tc.allowReads() == allow ? tc
            : new TabletControl(tc.tabletType(), tc.cells(), tc.deniedTables(), tc.frozen(), allow))
        .toList();
    return new Shard(primaryAlias, primaryTermStartTime, keyRange, sourceShards, controls, isPrimaryServing);
  }
}
