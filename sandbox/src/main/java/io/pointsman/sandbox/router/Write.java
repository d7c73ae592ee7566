package io.pointsman.sandbox.router;

import io.pointsman.api.model.TabletType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A write: always routed as PRIMARY, as vtgate routes DML.
 *
 * @param params JDBC parameters; nulls are allowed, so the list is copied without {@link List#copyOf}
 */
public record Write(String table, long shardingKey, String sql, List<Object> params) implements RoutedStatement {
  public Write {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(sql, "sql");
    params = params == null ? List.of() : Collections.unmodifiableList(Arrays.asList(params.toArray()));
  }

  public static Write of(String table, long shardingKey, String sql, Object... params) {
    return new Write(table, shardingKey, sql, Arrays.asList(params));
  }

  @Override
  public TabletType tabletType() {
    return TabletType.PRIMARY;
  }

  @Override
  public String describe() {
    return "write to " + table;
  }
}
