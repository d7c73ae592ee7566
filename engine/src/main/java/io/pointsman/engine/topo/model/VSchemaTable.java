package io.pointsman.engine.topo.model;

import java.util.List;

/** vschema.Table. */
public record VSchemaTable(String type, List<ColumnVindex> columnVindexes, AutoIncrement autoIncrement, String pinned) {
  public VSchemaTable {
    columnVindexes = columnVindexes == null ? List.of() : List.copyOf(columnVindexes);
  }

  public static VSchemaTable plain() {
    return new VSchemaTable(null, List.of(), null, null);
  }
}
