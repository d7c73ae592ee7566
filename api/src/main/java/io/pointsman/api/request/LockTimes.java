package io.pointsman.api.request;

import java.time.Duration;
import java.util.Map;

/** The lock fields every request shares, defaulted from {@link TimeLimits} and checked by {@link TimeLimitRules}. */
record LockTimes(Duration ttl, Duration maxHold) {

  static LockTimes read(RequestFields f) {
    Duration ttl = f.duration("lockTtl", TimeLimits.DEFAULT_LOCK_TTL, TimeLimitRules::lockTtl);
    Duration maxHold = f.duration("maxLockHold", TimeLimits.DEFAULT_MAX_LOCK_HOLD,
        hold -> TimeLimitRules.maxLockHold(hold, ttl));
    return new LockTimes(ttl, maxHold);
  }

  /** Writes both into a request's JSON, as {@link #read} reads them. */
  static void write(Map<String, Object> json, Duration ttl, Duration maxHold) {
    json.put("lockTtl", GoDurations.format(ttl));
    json.put("maxLockHold", GoDurations.format(maxHold));
  }
}
