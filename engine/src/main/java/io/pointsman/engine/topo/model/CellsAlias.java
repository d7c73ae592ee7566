package io.pointsman.engine.topo.model;

import java.util.List;

/** topodata.CellsAlias: a name for a group of cells, accepted wherever Vitess takes cells. */
public record CellsAlias(List<String> cells) {
  public CellsAlias {
    cells = cells == null ? List.of() : List.copyOf(cells);
  }
}
