package io.pointsman.engine.lock;

import java.util.Objects;

/**
 * What etcd said about a lock when asked.
 *
 * @param held whether the lease is alive and the key still carries the token's create revision
 * @param lossReason why it is not held; null when held
 * @param message details for an operator
 */
public record LockStatus(boolean held, LockLoss.Reason lossReason, String message) {
  public LockStatus {
    Objects.requireNonNull(message, "message");
    if (held != (lossReason == null)) {
      throw new IllegalArgumentException("a held lock has no loss reason and a lost one has one");
    }
  }

  public static LockStatus stillHeld(String message) {
    return new LockStatus(true, null, message);
  }

  public static LockStatus lost(LockLoss.Reason reason, String message) {
    return new LockStatus(false, Objects.requireNonNull(reason, "reason"), message);
  }
}
