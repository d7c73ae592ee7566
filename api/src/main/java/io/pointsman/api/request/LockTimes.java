package io.pointsman.api.request;

import java.time.Duration;

/** The lock fields every request shares, with their defaults and bounds. */
record LockTimes(Duration ttl, Duration maxHold) {
  /**
   * Two minutes outlives a worker failover (heartbeat timeout plus retry backoff) with room to
   * spare, which Vitess's 30 s etcd lease default does not.
   */
  static final Duration DEFAULT_TTL = Duration.ofMinutes(2);
  static final Duration DEFAULT_MAX_HOLD = Duration.ofMinutes(10);
  static final Duration MIN_TTL = Duration.ofSeconds(2);

  static LockTimes read(RequestFields f) {
    Duration ttl = f.duration("lockTtl", DEFAULT_TTL);
    if (ttl.compareTo(MIN_TTL) < 0) {
      throw f.fail("lockTtl", "must be at least " + GoDurations.format(MIN_TTL) + ", got " + GoDurations.format(ttl));
    }
    Duration maxHold = f.duration("maxLockHold", DEFAULT_MAX_HOLD);
    if (maxHold.compareTo(ttl) <= 0) {
      throw f.fail("maxLockHold", "must be longer than lockTtl (" + GoDurations.format(ttl) + "), got "
          + GoDurations.format(maxHold));
    }
    return new LockTimes(ttl, maxHold);
  }
}
