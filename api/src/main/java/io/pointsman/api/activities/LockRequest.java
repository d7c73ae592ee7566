package io.pointsman.api.activities;

import java.time.Duration;
import java.util.List;

/**
 * The locks an action takes, in this order: the named workflow lock, then the keyspace locks
 * sorted by name (one global order, so two actions can never wait on each other in a cycle).
 *
 * @param namedLock e.g. {@code customer/commerce2customer}
 * @param action what the lock value names as the action, e.g. {@code SwitchTraffic}
 */
public record LockRequest(String namedLock, List<String> keyspaces, String action, Duration ttl, Duration maxHold) {
  public LockRequest {
    keyspaces = keyspaces.stream().distinct().sorted().toList();
  }
}
