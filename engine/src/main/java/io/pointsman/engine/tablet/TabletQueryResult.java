package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a tablet returned for a statement: column names, rows as text (null for SQL NULL), and for
 * writes the affected rows and the generated id.
 */
public record TabletQueryResult(List<String> columns, List<List<String>> rows, long rowsAffected, long insertId) {
  public TabletQueryResult {
    columns = List.copyOf(columns);
    List<List<String>> copy = new ArrayList<>(rows.size());
    for (List<String> row : rows) {
      copy.add(Collections.unmodifiableList(new ArrayList<>(row))); // rows may hold nulls
    }
    rows = Collections.unmodifiableList(copy);
  }

  /** The value of {@code column} in row {@code row}; null for SQL NULL. */
  public String value(int row, String column) {
    int i = columns.indexOf(column);
    if (i < 0) {
      throw PointsmanException.internal("no column '" + column + "' in result with columns " + columns, null);
    }
    return rows.get(row).get(i);
  }
}
