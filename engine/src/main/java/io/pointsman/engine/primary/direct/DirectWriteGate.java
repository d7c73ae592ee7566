package io.pointsman.engine.primary.direct;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrepareBudget;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.WriteGatePort;
import java.time.Duration;
import java.util.SortedSet;

/** {@link WriteGatePort} as the sandbox needs it: the {@link WriteBarrier}'s gated triggers on the primary. */
final class DirectWriteGate extends DirectPort implements WriteGatePort {
  DirectWriteGate(Shared shared) {
    super(shared);
  }

  @Override
  public Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout) {
    return barrier.deny(at(shard), scope, locks, drainTimeout).took();
  }

  @Override
  public void prepare(ShardRef shard, WriteScope scope, String owner, LockSet locks, PrepareBudget budget) {
    barrier.prepare(at(shard), scope, owner, locks, budget);
  }

  @Override
  public void removePrepared(ShardRef shard, WriteScope scope, String owner, LockSet locks, Duration timeout) {
    barrier.removePrepared(at(shard), scope, owner, locks, timeout);
  }

  @Override
  public void undoDeny(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.undoDeny(at(shard), scope, locks, timeout);
  }

  @Override
  public void open(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.open(at(shard), scope, locks, timeout);
  }

  @Override
  public void removeDormant(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.removeDormant(at(shard), scope, locks, timeout);
  }

  @Override
  public void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    barrier.allow(at(shard), scope, locks, timeout);
  }

  @Override
  public void refresh(ShardRef shard) {
    // the triggers are the primary's whole state, and they do not read the topology
  }

  @Override
  public SortedSet<String> denied(ShardRef shard) {
    return barrier.deniedTables(at(shard));
  }
}
