package io.pointsman.sandbox.streams;

import java.util.ArrayList;
import java.util.List;

/**
 * A table's columns in definition order, which is the order of the values in a binlog row image,
 * and its identity columns (the primary key, or every column when there is none).
 */
record TableSchema(String db, String table, List<Column> columns, List<Integer> keyColumns, boolean hasPrimaryKey) {
  /** A column with what re-binding its binlog value needs: the type name and signedness. */
  record Column(String name, String dataType, boolean unsigned, boolean generated) {}

  TableSchema {
    columns = List.copyOf(columns);
    keyColumns = List.copyOf(keyColumns);
  }

  int indexOf(String column) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equalsIgnoreCase(column)) {
        return i;
      }
    }
    return -1;
  }

  /** The columns a write sets: all but generated ones, whose values MySQL computes. */
  List<Integer> writableColumns() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      if (!columns.get(i).generated()) {
        out.add(i);
      }
    }
    return out;
  }

  String qualifiedName() {
    return Sql.quote(db) + "." + Sql.quote(table);
  }
}
