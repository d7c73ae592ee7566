package io.pointsman.api.request;

import java.time.Duration;

/**
 * The time limits an action takes, each default and bound written once: the request decoders, the
 * CLI's flag defaults, the lock tokens and the engine's lock options all read them here. Each
 * default a flag or a document shows also has its text, a compile-time constant because picocli's
 * {@code defaultValue} must be one; the Duration is parsed from that text, so the two cannot drift.
 * The rules these values obey are {@link TimeLimitRules}.
 */
public final class TimeLimits {
  /** How long a write switch waits for open transactions to end and for catch-up ({@code timeout}). */
  public static final String DEFAULT_TIMEOUT_TEXT = "30s";
  public static final Duration DEFAULT_TIMEOUT = parse(DEFAULT_TIMEOUT_TEXT);
  public static final String MIN_TIMEOUT_TEXT = "1s";
  public static final Duration MIN_TIMEOUT = parse(MIN_TIMEOUT_TEXT);

  /** The stream lag above which a switch is refused ({@code maxReplicationLagAllowed}), as in vtctldclient. */
  public static final String DEFAULT_MAX_REPLICATION_LAG_TEXT = "30s";
  public static final Duration DEFAULT_MAX_REPLICATION_LAG = parse(DEFAULT_MAX_REPLICATION_LAG_TEXT);

  /**
   * The TTL of every lock an action takes ({@code lockTtl}; docs/locks.md §5). Two minutes outlives a worker failover
   * (heartbeat timeout plus retry backoff) with room to spare, which Vitess's 30 s etcd lease
   * default does not.
   */
  public static final String DEFAULT_LOCK_TTL_TEXT = "2m";
  public static final Duration DEFAULT_LOCK_TTL = parse(DEFAULT_LOCK_TTL_TEXT);
  /** docs/locks.md §5. */
  public static final String MIN_LOCK_TTL_TEXT = "2s";
  public static final Duration MIN_LOCK_TTL = parse(MIN_LOCK_TTL_TEXT);

  /**
   * How long after acquisition renewal stops on purpose ({@code maxLockHold}; docs/locks.md §5):
   * no lock is renewed forever by a forgotten holder. Also what a lock token written before tokens
   * carried it is given.
   */
  public static final String DEFAULT_MAX_LOCK_HOLD_TEXT = "10m";
  public static final Duration DEFAULT_MAX_LOCK_HOLD = parse(DEFAULT_MAX_LOCK_HOLD_TEXT);

  /** How long one acquisition of an action's locks may wait for them: Vitess's {@code --lock-timeout}. */
  public static final String DEFAULT_LOCK_ACQUIRE_TIMEOUT_TEXT = "45s";
  public static final Duration DEFAULT_LOCK_ACQUIRE_TIMEOUT = parse(DEFAULT_LOCK_ACQUIRE_TIMEOUT_TEXT);

  private TimeLimits() {}

  private static Duration parse(String text) {
    Duration d = GoDurations.parseOrNull(text);
    if (d == null) {
      throw new ExceptionInInitializerError("not a duration: " + text);
    }
    return d;
  }
}
