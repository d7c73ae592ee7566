package io.pointsman.api.lock;

import io.pointsman.api.request.TimeLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Proof of one held etcd lock, small enough to travel between activities in workflow history.
 * The create revision of the lock key is both the guard of every fenced etcd transaction
 * ({@code CreateRevision(key) == createRevision}) and the fencing token written to MySQL.
 *
 * @param key the full etcd key, e.g. {@code /vitess/global/keyspaces/customer/locks/7587879623616723911}
 * @param resource what is locked, e.g. {@code keyspace customer} (for messages)
 * @param leaseId the etcd lease the key is attached to
 * @param createRevision the key's create revision: the fencing token
 * @param ttl the lease TTL
 * @param acquiredAt when the lock was granted, by the clock its holders share (the Temporal server's,
 *     for locks taken by the lock activities; see ServerClock); the max hold counts from it
 * @param maxHold how long after {@code acquiredAt} renewal stops on purpose, wherever the lock is
 *     renewed (a worker that re-attaches after a crash keeps the original budget); a token written
 *     before tokens carried it (null in its JSON) gets {@link TimeLimits#DEFAULT_MAX_LOCK_HOLD}
 */
public record LockToken(
    String key, String resource, long leaseId, long createRevision, Duration ttl, Instant acquiredAt,
    Duration maxHold) {
  public LockToken {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(acquiredAt, "acquiredAt");
    if (createRevision <= 0) {
      throw new IllegalArgumentException("createRevision must be positive, got " + createRevision);
    }
    if (maxHold == null) {
      maxHold = TimeLimits.DEFAULT_MAX_LOCK_HOLD;
    }
    if (maxHold.isNegative() || maxHold.isZero()) {
      throw new IllegalArgumentException("maxHold must be positive, got " + maxHold);
    }
  }

  /** A token with the default max hold, for callers that do not choose one (tests, tools). */
  public LockToken(String key, String resource, long leaseId, long createRevision, Duration ttl, Instant acquiredAt) {
    this(key, resource, leaseId, createRevision, ttl, acquiredAt, TimeLimits.DEFAULT_MAX_LOCK_HOLD);
  }

  /** This token stamped with another acquisition time. */
  public LockToken withAcquiredAt(Instant at) {
    return new LockToken(key, resource, leaseId, createRevision, ttl, at, maxHold);
  }

  /** The fencing token written to MySQL fences; increases with every acquisition cluster-wide. */
  public long fencingToken() {
    return createRevision;
  }
}
