package io.pointsman.engine.topo.model;

import java.util.List;

/** vschema.ColumnVindex. */
public record ColumnVindex(String column, String name, List<String> columns) {
  public ColumnVindex {
    columns = columns == null ? List.of() : List.copyOf(columns);
  }
}
