package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;

/**
 * One source table bound to its target table: the writer, and the stream's key-range conditions
 * resolved to column positions. Rows are judged on values as they are written (JDBC form).
 */
final class TablePlan {
  private final TableWriter writer;
  private final int[] conditionColumns;
  private final KeyRange[] ranges;

  private TablePlan(TableWriter writer, int[] conditionColumns, KeyRange[] ranges) {
    this.writer = writer;
    this.conditionColumns = conditionColumns;
    this.ranges = ranges;
  }

  static TablePlan bind(StreamFilter.TableRule rule, TableSchema target) {
    List<StreamFilter.HashCondition> conditions = rule.conditions();
    int[] columns = new int[conditions.size()];
    KeyRange[] ranges = new KeyRange[conditions.size()];
    for (int i = 0; i < conditions.size(); i++) {
      int c = target.indexOf(conditions.get(i).column());
      if (c < 0) {
        throw PointsmanException.invalidArgument("the filter of " + rule.table() + " names column "
            + conditions.get(i).column() + ", which the table does not have");
      }
      columns[i] = c;
      ranges[i] = conditions.get(i).range();
    }
    return new TablePlan(new TableWriter(target), columns, ranges);
  }

  TableWriter writer() {
    return writer;
  }

  TableSchema schema() {
    return writer.schema();
  }

  /** Whether the row belongs to this stream: its keyspace id falls in every range of the filter. */
  boolean matches(Object[] values) {
    for (int i = 0; i < conditionColumns.length; i++) {
      if (ranges[i].isFull()) {
        continue;
      }
      byte[] ksid = KeyspaceIds.of(values[conditionColumns[i]]);
      if (!ranges[i].contains(ksid)) {
        return false;
      }
    }
    return true;
  }
}
