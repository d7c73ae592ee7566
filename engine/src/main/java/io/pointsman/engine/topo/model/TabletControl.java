package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import java.util.List;

/** topodata.Shard.TabletControl: denied tables per tablet type (cells must be empty for PRIMARY). */
public record TabletControl(TabletType tabletType, List<String> cells, List<String> deniedTables, boolean frozen) {
  public TabletControl {
    cells = cells == null ? List.of() : List.copyOf(cells);
    deniedTables = deniedTables == null ? List.of() : List.copyOf(deniedTables);
  }
}
