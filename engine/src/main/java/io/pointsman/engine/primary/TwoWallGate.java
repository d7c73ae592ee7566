package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrepareBudget;
import io.pointsman.engine.mysql.WriteScope;
import java.time.Duration;
import java.util.Objects;
import java.util.SortedSet;
import java.util.function.Consumer;

/**
 * Vitess's wall with pointsman's MySQL barrier behind it, for an operator who wants a write that
 * reaches the primary's MySQL past vttablet (a client connected straight to MySQL, a tablet that
 * missed its refresh) refused too: the first wall is vttablet's (denied tables or query service,
 * with RefreshState), the second the deny triggers of {@link io.pointsman.engine.mysql.WriteBarrier}
 * on the primary's MySQL. Denying raises the first then the second; allowing lowers them in the other
 * order, so that no write vttablet lets through meets a trigger. Off by default on a real cluster
 * ({@code POINTSMAN_TABLET_WRITE_BARRIER}): vtgate buffers the tablet's refusal, not a trigger's.
 */
public final class TwoWallGate implements WriteGatePort {
  private final WriteGatePort tablet;
  private final WriteGatePort mysql;

  public TwoWallGate(WriteGatePort tablet, WriteGatePort mysql) {
    this.tablet = Objects.requireNonNull(tablet, "tablet");
    this.mysql = Objects.requireNonNull(mysql, "mysql");
  }

  @Override
  public Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout) {
    return tablet.deny(shard, scope, locks, drainTimeout).plus(mysql.deny(shard, scope, locks, drainTimeout));
  }

  @Override
  public void prepare(ShardRef shard, WriteScope scope, String owner, LockSet locks, PrepareBudget budget) {
    mysql.prepare(shard, scope, owner, locks, budget);
  }

  @Override
  public void removePrepared(ShardRef shard, WriteScope scope, String owner, LockSet locks, Duration timeout) {
    mysql.removePrepared(shard, scope, owner, locks, timeout);
  }

  @Override
  public void undoDeny(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    lowerBoth(gate -> gate.undoDeny(shard, scope, locks, timeout));
  }

  @Override
  public void open(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    lowerBoth(gate -> gate.open(shard, scope, locks, timeout));
  }

  @Override
  public void removeDormant(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    mysql.removeDormant(shard, scope, locks, timeout);
  }

  @Override
  public void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    lowerBoth(gate -> gate.allow(shard, scope, locks, timeout));
  }

  @Override
  public void refresh(ShardRef shard) {
    tablet.refresh(shard);
  }

  /** Vitess's view, the one its tools and pointsman's validator compare with the topology. */
  @Override
  public SortedSet<String> denied(ShardRef shard) {
    return tablet.denied(shard);
  }

  /** The tables whose writes the second wall (the MySQL triggers) refuses now. */
  public SortedSet<String> deniedInMysql(ShardRef shard) {
    return mysql.denied(shard);
  }

  /**
   * Lowers the MySQL wall, then vttablet's: the other order from raising them, so that no write
   * vttablet lets through meets a trigger.
   */
  private void lowerBoth(Consumer<WriteGatePort> lower) {
    lower.accept(mysql);
    lower.accept(tablet);
  }
}
