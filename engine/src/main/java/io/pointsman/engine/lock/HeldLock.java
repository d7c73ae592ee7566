package io.pointsman.engine.lock;

import io.pointsman.api.lock.LockToken;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A lock this process holds and renews. Close it to release it; a lock that is lost is reported
 * through {@link #lossFuture()}, the {@link LockListener} and a WARN log, and never regained.
 */
public interface HeldLock extends AutoCloseable {

  /** The proof of the lock, to fence mutations with and to hand to other activities. */
  LockToken token();

  /**
   * Whether this process still believes it holds the lock: not released, no loss seen, and the last
   * successful renewal is less than a TTL old. Answers from local state without asking etcd; a loss
   * found here (an overdue renewal) is reported like any other.
   */
  boolean isHeld();

  /**
   * Throws unless the lock is held; asks etcd (which also renews the lease).
   *
   * @throws io.pointsman.api.errors.LockLostException when a loss was seen, the lock was released, or
   *     etcd says the lease or key is gone
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not answer in time
   */
  void checkHeld();

  /**
   * Completes with the loss when the lock is lost; never completes if it is released first. Each
   * call returns a new dependent future, so completing it does not affect the lock.
   */
  CompletableFuture<LockLoss> lossFuture();

  /**
   * Completes when the lock is released through this process's lock service (this handle's
   * {@link #close()} or {@link LockService#release}); never completes if it is lost first. Each call
   * returns a new dependent future.
   */
  CompletableFuture<Void> releasedFuture();

  /**
   * Stops renewing the lock in this process without revoking it, because it is handed to another
   * holder: an activity on another worker that {@link LockService#attach attaches} to the token,
   * and that releases it in the end with {@link LockService#release}. The lease expires within its
   * TTL unless somebody attaches. Not a loss: nothing is reported. Idempotent; afterwards
   * {@link #isHeld()} is false and {@link #close()} does nothing.
   */
  void detach();

  /**
   * Keeps renewing for at most {@code grace}, then {@link #detach() detaches}: for a lock handed
   * to a holder that may be slow to attach (the gap between two activities of a workflow), but
   * that must not be renewed here forever if it never comes. An attach to the same lease in this
   * process, a release or a loss ends renewal sooner. Returns at once.
   *
   * @param grace how long to keep renewing; zero or negative detaches now
   */
  void detachAfter(Duration grace);

  /**
   * Releases the lock: stops renewal and revokes the lease. Idempotent; after a failed revoke a
   * later call tries again. A handle whose lease was taken over by a later
   * {@link LockService#attach} in this process, or that was {@link #detach() detached}, does
   * nothing, since the lock is no longer its own.
   *
   * @throws io.pointsman.api.errors.PointsmanException UNAVAILABLE when etcd did not confirm the revoke;
   *     the lease then expires within its TTL since nothing renews it
   */
  @Override
  void close();
}
