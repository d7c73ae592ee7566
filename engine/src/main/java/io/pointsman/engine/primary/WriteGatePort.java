package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
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

  /** Lets writes in {@code scope} through again; {@code timeout} bounds waiting for the primary. */
  void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout);

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
