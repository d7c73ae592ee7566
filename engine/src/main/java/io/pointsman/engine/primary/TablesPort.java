package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import java.util.Collection;
import java.util.List;

/**
 * The tables of a shard's database, as Complete and Cancel remove them. Every change is fenced with
 * the caller's locks and idempotent (a table already gone is skipped). Direct MySQL:
 * {@link io.pointsman.engine.mysql.TableDrops}.
 */
public interface TablesPort {

  /** The base tables of the shard's database, sorted. */
  List<String> baseTables(ShardRef shard);

  /** Drops the tables; returns those dropped by this call. */
  List<String> drop(ShardRef shard, Collection<String> tables, LockSet locks);

  /** Renames the tables as Vitess's Complete --rename-tables does; returns those renamed by this call. */
  List<String> rename(ShardRef shard, Collection<String> tables, LockSet locks);
}
