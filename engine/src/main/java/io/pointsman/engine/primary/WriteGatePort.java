package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.mysql.PrepareBudget;
import io.pointsman.engine.mysql.WriteScope;
import java.time.Duration;
import java.util.SortedSet;

/**
 * Stops and lets through writes on a shard's primary: some tables (MoveTables' source during the
 * switch) or the whole database (Reshard). On real Vitess the topology says it (the shard record's
 * PRIMARY denied tables, or the query service disabled in SrvKeyspace) and the tablet enforces it
 * once told to re-read its state (RefreshState). Direct MySQL (the sandbox):
 * {@link io.pointsman.engine.mysql.WriteBarrier} with its deny triggers. Both calls are idempotent.
 */
public interface WriteGatePort {

  /**
   * Denies writes in {@code scope} on the shard's primary and waits, up to {@code drainTimeout},
   * for writes already under way there to finish.
   *
   * @return how long it took
   */
  Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout);

  /**
   * Installs, ahead of the write window, whatever {@link #deny} would otherwise install inside it,
   * letting writes through meanwhile (direct MySQL: the barrier's triggers, dormant), marked as
   * {@code owner}'s. Idempotent; undone by {@link #removePrepared} or {@link #allow}. Nothing to do
   * where denying costs nothing per table (vttablet's denied tables). Each statement waits for the
   * transactions using its table at most the budget's lock wait; all of them, at most its total.
   */
  default void prepare(ShardRef shard, WriteScope scope, String owner, LockSet locks, PrepareBudget budget) {}

  /** The undo of {@link #prepare} by {@code owner}, where writes are not denied now. */
  default void removePrepared(ShardRef shard, WriteScope scope, String owner, LockSet locks, Duration timeout) {}

  /**
   * The undo of {@link #deny}: writes in {@code scope} go through again, and what deny installed
   * inside the window is removed, while what was prepared before it stays for its own undo.
   */
  default void undoDeny(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    allow(shard, scope, locks, timeout);
  }

  /** Lets writes in {@code scope} through again and removes what deny or prepare installed. */
  void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout);

  /**
   * Lets writes in {@code scope} through again, as cheaply as the write window needs: what was
   * installed may stay, letting writes through, until {@link #allow} or {@link #removeDormant}.
   */
  default void open(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    allow(shard, scope, locks, timeout);
  }

  /**
   * Removes whatever prepare installed where it does not deny writes now, whoever prepared it;
   * where writes are denied, nothing changes. Complete's cleanup of a switch's target.
   */
  default void removeDormant(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {}

  /**
   * Makes the shard's primary apply what the topology says of its writes now (vttablet re-reads its
   * Shard record and SrvKeyspace on RefreshState). Called after the topology lets writes through,
   * which the primary would not notice otherwise; nothing to do where the primary keeps no such
   * state (direct MySQL, whose routers read the topology themselves).
   */
  void refresh(ShardRef shard);

  /** The tables whose writes are denied on the shard's primary. */
  SortedSet<String> denied(ShardRef shard);
}
