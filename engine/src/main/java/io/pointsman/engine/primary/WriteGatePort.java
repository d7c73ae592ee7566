package io.pointsman.engine.primary;

import io.pointsman.api.lock.LockSet;
import java.util.SortedSet;

/**
 * Stops and lets through writes to some tables on a shard's primary (MoveTables' source during the
 * switch). On real Vitess this is the shard record's denied tables for PRIMARY, enforced by the
 * tablet once told to re-read its state (RefreshState). Direct MySQL (the sandbox):
 * {@link io.pointsman.engine.mysql.WriteBarrier} with its deny triggers. Both calls are idempotent.
 */
public interface WriteGatePort {

  /** Denies writes to {@code tables} on the shard's primary; returns the tables denied there afterwards. */
  SortedSet<String> deny(ShardRef shard, SortedSet<String> tables, LockSet locks);

  /** Lets writes to {@code tables} through again; returns the tables still denied there afterwards. */
  SortedSet<String> allow(ShardRef shard, SortedSet<String> tables, LockSet locks);

  /** The tables whose writes are denied on the shard's primary. */
  SortedSet<String> denied(ShardRef shard);
}
