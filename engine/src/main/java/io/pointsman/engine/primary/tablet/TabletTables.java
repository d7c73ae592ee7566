package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.TablesPort;
import io.pointsman.engine.tablet.DbaQuery;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * {@link TablesPort} on vttablets, as vtctld removes a workflow's tables (Complete the sources',
 * Cancel the targets'): one ExecuteFetchAsDba statement per table (the tablet takes no more), each
 * after the fence, with the tablet told to reload its schema and foreign key checks off (the tables
 * may reference each other, and go in name order). A table already gone is skipped, so a rerun drops
 * nothing twice.
 */
public final class TabletTables extends TabletPort implements TablesPort {
  TabletTables(Shared shared) {
    super(shared);
  }

  @Override
  public List<String> baseTables(ShardRef shard) {
    return baseTables(primaries.resolve(shard));
  }

  @Override
  public List<String> drop(ShardRef shard, Collection<String> tables, LockSet locks) {
    return run(shard, tables, locks, false);
  }

  @Override
  public List<String> rename(ShardRef shard, Collection<String> tables, LockSet locks) {
    return run(shard, tables, locks, true);
  }

  private List<String> run(ShardRef shard, Collection<String> tables, LockSet locks, boolean rename) {
    TabletPrimary p = primaries.resolve(shard);
    TreeSet<String> wanted = new TreeSet<>();
    tables.forEach(t -> wanted.add(Names.table(t)));
    List<String> existing = baseTables(p);
    List<String> done = new ArrayList<>();
    for (String table : wanted) {
      if (!existing.contains(table)) {
        continue;
      }
      fence.raise(p, shard, locks, (rename ? "renaming" : "dropping") + " table " + table);
      String sql = rename
          ? "rename table " + SqlIdentifiers.table(table) + " to " + SqlIdentifiers.table(TableDrops.renamedName(table))
          : "drop table if exists " + SqlIdentifiers.table(table);
      client.executeFetchAsDba(p.endpoint(), new DbaQuery(sql, p.dbName(), DbaQuery.DEFAULT_MAX_ROWS, false, true,
          true));
      done.add(table);
    }
    return done;
  }

  private List<String> baseTables(TabletPrimary p) {
    return client.executeFetchAsDba(p.endpoint(), DbaQuery.of("select table_name from information_schema.tables"
        + " where table_schema = " + sqlString(p.dbName()) + " and table_type = 'BASE TABLE' order by table_name"))
        .rows().stream().map(r -> r.get(0)).toList();
  }
}
