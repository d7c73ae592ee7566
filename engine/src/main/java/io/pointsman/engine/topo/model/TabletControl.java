package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import java.util.List;

/**
 * topodata.Shard.TabletControl: denied tables per tablet type (cells must be empty for PRIMARY).
 * {@code allowReads}: the tablets still serve reads of the denied tables, which vtctld's
 * MirrorTraffic sets on the target's PRIMARY control while the workflow's traffic is mirrored.
 */
public record TabletControl(TabletType tabletType, List<String> cells, List<String> deniedTables, boolean frozen,
    boolean allowReads) {
  public TabletControl {
    cells = cells == null ? List.of() : List.copyOf(cells);
    deniedTables = deniedTables == null ? List.of() : List.copyOf(deniedTables);
  }
}
