package io.pointsman.engine.lock;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.lock.LockToken;
import java.util.Objects;

/**
 * Why a held lock stopped being held. Releasing a lock is not a loss.
 *
 * @param token the lock that was lost
 * @param reason what was seen
 * @param message details for an operator
 */
public record LockLoss(LockToken token, Reason reason, String message) {

  public enum Reason {
    /** etcd says the lease no longer exists (expired or revoked). */
    LEASE_GONE,
    /** The lease is alive but the key was deleted or re-created with another create revision. */
    KEY_GONE,
    /** No renewal succeeded for a whole TTL, so the lease may have expired on the server. */
    RENEWAL_FAILED,
    /** The lock was held for its max hold; renewal stopped on purpose and the key expires within a TTL. */
    MAX_HOLD_REACHED,
    /**
     * The lock service of this process was closed (the worker is shutting down), so nothing here
     * renews the lease any more. The lock itself may be alive: another process can still attach.
     */
    SERVICE_CLOSED
  }

  public LockLoss {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }

  /** The exception a holder throws when it finds this loss. */
  public LockLostException toException() {
    return new LockLostException(token.key(), "lock on " + token.resource() + " lost (" + reason + "): " + message);
  }
}
