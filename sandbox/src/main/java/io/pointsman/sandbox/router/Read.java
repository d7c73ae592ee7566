package io.pointsman.sandbox.router;

import io.pointsman.api.model.TabletType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A read routed for a tablet type: REPLICA and RDONLY reads follow the {@code t@replica} /
 * {@code t@rdonly} routing rules. The sandbox runs primaries only, so the chosen shard's primary
 * answers whatever the type.
 */
public record Read(String table, TabletType tabletType, long shardingKey, String sql, List<Object> params)
    implements RoutedStatement {
  public Read {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(tabletType, "tabletType");
    Objects.requireNonNull(sql, "sql");
    params = params == null ? List.of() : Collections.unmodifiableList(Arrays.asList(params.toArray()));
  }

  public static Read of(String table, TabletType tabletType, long shardingKey, String sql, Object... params) {
    return new Read(table, tabletType, shardingKey, sql, Arrays.asList(params));
  }

  @Override
  public String describe() {
    return tabletType.name().toLowerCase(Locale.ROOT) + " read of " + table;
  }
}
