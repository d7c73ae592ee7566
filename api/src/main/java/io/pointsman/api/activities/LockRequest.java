package io.pointsman.api.activities;

import java.time.Duration;
import java.util.List;

/**
 * The locks an action takes, in this order: the named workflow lock, then the keyspace locks
 * sorted by name, then the shard locks sorted by keyspace and shard (one global order, so two
 * actions can never wait on each other in a cycle).
 *
 * @param namedLock e.g. {@code customer/commerce2customer}; null for a request that only adds shard
 *     locks to an action already holding its named and keyspace locks (the write window)
 * @param shards {@code <keyspace>/<shard>} names, e.g. {@code customer/-80}; empty when none (and in
 *     requests recorded before shard locks existed, whose JSON has no such field)
 * @param action what the lock value names as the action, e.g. {@code SwitchTraffic}
 */
public record LockRequest(String namedLock, List<String> keyspaces, List<String> shards, String action,
    Duration ttl, Duration maxHold) {
  public LockRequest {
    keyspaces = keyspaces == null ? List.of() : keyspaces.stream().distinct().sorted().toList();
    shards = shards == null ? List.of() : shards.stream().distinct().sorted(LockRequest::byKeyspaceThenShard)
        .toList();
  }

  /** The named and keyspace locks of an action. */
  public LockRequest(String namedLock, List<String> keyspaces, String action, Duration ttl, Duration maxHold) {
    this(namedLock, keyspaces, List.of(), action, ttl, maxHold);
  }

  /** Shard locks alone, taken by an action that already holds its named and keyspace locks. */
  public static LockRequest shardsOnly(List<String> shards, String action, Duration ttl, Duration maxHold) {
    return new LockRequest(null, List.of(), shards, action, ttl, maxHold);
  }

  /** {@code <keyspace>/<shard>} of one shard. */
  public static String shard(String keyspace, String shard) {
    return keyspace + "/" + shard;
  }

  // By keyspace first: "a-b/x" must not sort between "a/x" and "a/y" as plain strings would put it.
  private static int byKeyspaceThenShard(String a, String b) {
    int ia = a.indexOf('/');
    int ib = b.indexOf('/');
    String ka = ia < 0 ? a : a.substring(0, ia);
    String kb = ib < 0 ? b : b.substring(0, ib);
    int c = ka.compareTo(kb);
    return c != 0 ? c : a.compareTo(b);
  }
}
