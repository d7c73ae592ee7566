package io.pointsman.engine.primary.tablet;

import io.pointsman.engine.tablet.DbaQuery;
import io.pointsman.engine.tablet.TabletManagerClient;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A table of pointsman's own database on the primaries ({@code _pointsman}, next to, never inside,
 * Vitess's sidecar), created through ExecuteFetchAsDba the first time a process uses it on a tablet.
 * Both statements are idempotent, so two processes creating it at once is harmless.
 */
final class OwnTable {
  /** pointsman's own database on the primaries. */
  static final String DATABASE = "_pointsman";

  private final TabletManagerClient client;
  private final String name;
  private final String columns;
  private final Set<String> ready = ConcurrentHashMap.newKeySet();

  /**
   * @param table the table's name in {@link #DATABASE}
   * @param columns its column and key definitions, as in {@code create table t (...)}
   */
  OwnTable(TabletManagerClient client, String table, String columns) {
    this.client = Objects.requireNonNull(client, "client");
    this.name = DATABASE + "." + table;
    this.columns = Objects.requireNonNull(columns, "columns");
  }

  /** {@code _pointsman.<table>}, for statements. */
  String name() {
    return name;
  }

  /** Creates the database and the table on the primary unless this process did already. */
  void ensure(TabletPrimary primary) {
    if (ready.contains(primary.endpoint().address())) {
      return;
    }
    client.executeFetchAsDba(primary.endpoint(), DbaQuery.of("create database if not exists " + DATABASE));
    client.executeFetchAsDba(primary.endpoint(), DbaQuery.of("create table if not exists " + name + " (" + columns
        + ") engine = InnoDB"));
    ready.add(primary.endpoint().address());
  }
}
