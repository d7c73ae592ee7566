package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.TableDrops;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.TablesPort;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/** {@link TablesPort} by DDL on the primary, fenced. A dropped table's barrier triggers go with it. */
final class DirectTables implements TablesPort {
  /** How long taking the barrier's triggers off before a rename may wait for transactions in flight. */
  private static final Duration BARRIER_TIMEOUT = Duration.ofSeconds(30);

  private final PrimaryResolver primaries;
  private final TableDrops drops;
  private final WriteBarrier barrier;

  DirectTables(PrimaryResolver primaries, TableDrops drops, WriteBarrier barrier) {
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.drops = Objects.requireNonNull(drops, "drops");
    this.barrier = Objects.requireNonNull(barrier, "barrier");
  }

  @Override
  public List<String> baseTables(ShardRef shard) {
    return drops.baseTables(primaries.resolve(shard.keyspace(), shard.shard()));
  }

  @Override
  public List<String> drop(ShardRef shard, Collection<String> tables, LockSet locks) {
    return drops.drop(primaries.resolve(shard.keyspace(), shard.shard()), tables, locks);
  }

  /** The barrier's triggers would travel with a renamed table, so they come off first. */
  @Override
  public List<String> rename(ShardRef shard, Collection<String> tables, LockSet locks) {
    PrimaryEndpoint at = primaries.resolve(shard.keyspace(), shard.shard());
    barrier.allow(at, WriteScope.tables(tables), locks, BARRIER_TIMEOUT);
    return drops.rename(at, tables, locks);
  }
}
