package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.WriteGatePort;
import java.time.Duration;
import java.util.Objects;
import java.util.SortedSet;

/** {@link WriteGatePort} as the sandbox needs it: the {@link WriteBarrier}'s gated triggers on the primary. */
final class DirectWriteGate implements WriteGatePort {
  private final PrimaryResolver primaries;
  private final WriteBarrier barrier;

  DirectWriteGate(PrimaryResolver primaries, WriteBarrier barrier) {
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.barrier = Objects.requireNonNull(barrier, "barrier");
  }

  @Override
  public Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout) {
    return barrier.deny(primaries.resolve(shard.keyspace(), shard.shard()), scope, locks, drainTimeout).took();
  }

  @Override
  public void prepare(ShardRef shard, WriteScope scope, String owner, LockSet locks, Duration timeout) {
    barrier.prepare(primaries.resolve(shard.keyspace(), shard.shard()), scope, owner, locks, timeout);
  }

  @Override
  public void removePrepared(ShardRef shard, WriteScope scope, String owner, LockSet locks, Duration timeout) {
    barrier.removePrepared(primaries.resolve(shard.keyspace(), shard.shard()), scope, owner, locks, timeout);
  }

  @Override
  public void undoDeny(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.undoDeny(primaries.resolve(shard.keyspace(), shard.shard()), scope, locks, timeout);
  }

  @Override
  public void open(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.open(primaries.resolve(shard.keyspace(), shard.shard()), scope, locks, timeout);
  }

  @Override
  public void removeDormant(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.removeDormant(primaries.resolve(shard.keyspace(), shard.shard()), scope, locks, timeout);
  }

  @Override
  public void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.allow(primaries.resolve(shard.keyspace(), shard.shard()), scope, locks, timeout);
  }

  @Override
  public void refresh(ShardRef shard) {
    // the triggers are the primary's whole state, and they do not read the topology
  }

  @Override
  public SortedSet<String> denied(ShardRef shard) {
    return barrier.deniedTables(primaries.resolve(shard.keyspace(), shard.shard()));
  }
}
