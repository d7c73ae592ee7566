package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.TablesPort;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** {@link TablesPort} by DDL on the primary, fenced. A dropped table's barrier triggers go with it. */
final class DirectTables extends DirectPort implements TablesPort {
  /** How long taking the barrier's triggers off before a rename may wait for transactions in flight. */
  private static final Duration BARRIER_TIMEOUT = Duration.ofSeconds(30);

  DirectTables(Shared shared) {
    super(shared);
  }

  @Override
  public List<String> baseTables(ShardRef shard) {
    return drops.baseTables(at(shard));
  }

  @Override
  public List<String> drop(ShardRef shard, Collection<String> tables, LockSet locks) {
    return drops.drop(at(shard), tables, locks);
  }

  /** The barrier's triggers would travel with a renamed table, so they come off first. */
  @Override
  public List<String> rename(ShardRef shard, Collection<String> tables, LockSet locks) {
    PrimaryEndpoint primary = at(shard);
    barrier.allow(primary, WriteScope.tables(tables), locks, BARRIER_TIMEOUT);
    return drops.rename(primary, tables, locks);
  }
}
