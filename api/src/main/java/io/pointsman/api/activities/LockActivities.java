package io.pointsman.api.activities;

import io.pointsman.api.lock.LockSet;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Taking, holding and releasing the topology locks of one action (docs/locks.md §9). */
@ActivityInterface
public interface LockActivities {
  /**
   * Takes the named workflow lock, then the keyspace locks, then the shard locks the request names
   * (a write window asks for its shard locks alone, later), each with its own etcd lease; on any
   * failure releases what it took. The returned set names the holder (this workflow) in etcd.
   */
  @ActivityMethod(name = "acquireLocks")
  LockSet acquireLocks(LockRequest request);

  /**
   * Takes the locks as {@link #acquireLocks} does, but only if none of them is held by another
   * holder: it never waits in line beyond a fraction of a second, and fails with type LOCK_TIMEOUT
   * naming the holder instead. Meant to run as a local activity, inside the workflow task that
   * needs the locks, with {@link #acquireLocks} as the fallback that waits and shows whom for.
   *
   * @param workflowTimeMillis the workflow's time when it asked ({@code Workflow.currentTimeMillis()}),
   *     the Temporal server's clock that stamps each lock's acquisition: a local activity's own
   *     info carries this worker's wall clock, which may be skewed
   */
  @ActivityMethod(name = "tryAcquireLocks")
  LockSet tryAcquireLocks(LockRequest request, long workflowTimeMillis);

  /**
   * Keeps the leases alive and heartbeats on every renewal until cancelled, or until releaseLocks
   * released them in the same worker (then it completes), or until a lease is lost or maxLockHold
   * passes (then fails with type LOCK_LOST). A retry on another worker re-attaches to the same
   * leases, or fails LOCK_LOST if they are gone.
   */
  @ActivityMethod(name = "holdLocks")
  void holdLocks(LockSet locks);

  /** Revokes the leases; idempotent, and a lease that is already gone is fine. */
  @ActivityMethod(name = "releaseLocks")
  void releaseLocks(LockSet locks);
}
