package io.pointsman.api.request;

import java.time.Duration;
import java.util.Optional;

/**
 * The rules the time limits of an action obey, in one place. Every way in decodes through the
 * request records (JSON typed into the Temporal UI, the CLI's flags, which are turned into that
 * same JSON, Java's {@code of}/{@code with} methods), and their decoders ask these rules, so what
 * one accepts the others accept. Each rule answers the problem with a value, worded to follow the
 * field's name ({@code 'lockTtl' must be at least 2s, got 1s}), or nothing when the value is fine;
 * negative durations are refused before any rule is asked.
 */
public final class TimeLimitRules {
  private TimeLimitRules() {}

  /** {@code timeout}: at least {@link TimeLimits#MIN_TIMEOUT}. */
  public static Optional<String> timeout(Duration timeout) {
    return atLeast(timeout, TimeLimits.MIN_TIMEOUT);
  }

  /** {@code maxReplicationLagAllowed}: any non-negative duration (zero refuses any lag). */
  public static Optional<String> maxReplicationLagAllowed(Duration lag) {
    return Optional.empty();
  }

  /** {@code lockTtl}: at least {@link TimeLimits#MIN_LOCK_TTL}. */
  public static Optional<String> lockTtl(Duration ttl) {
    return atLeast(ttl, TimeLimits.MIN_LOCK_TTL);
  }

  /** {@code maxLockHold}: longer than the action's {@code lockTtl} (docs/locks.md §5). */
  public static Optional<String> maxLockHold(Duration maxHold, Duration ttl) {
    if (maxHold.compareTo(ttl) <= 0) {
      return Optional.of("must be longer than lockTtl (" + GoDurations.format(ttl) + "), got "
          + GoDurations.format(maxHold));
    }
    return Optional.empty();
  }

  private static Optional<String> atLeast(Duration value, Duration min) {
    if (value.compareTo(min) < 0) {
      return Optional.of("must be at least " + GoDurations.format(min) + ", got " + GoDurations.format(value));
    }
    return Optional.empty();
  }
}
