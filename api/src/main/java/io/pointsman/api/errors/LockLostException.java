package io.pointsman.api.errors;

/**
 * A lock this process relied on is no longer held (lease expired or revoked, key deleted or
 * re-created), or a MySQL fence already carries a higher token. Nothing was changed by the call
 * that raised it; the holder must stop mutating and compensate under a freshly acquired lock.
 */
public final class LockLostException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  private final String lockKey;

  public LockLostException(String lockKey, String message) {
    this(lockKey, message, null);
  }

  public LockLostException(String lockKey, String message, Throwable cause) {
    super(ErrorCode.LOCK_LOST, message, cause);
    this.lockKey = lockKey;
  }

  /** The etcd key of the lost lock, or the MySQL fence resource. */
  public String lockKey() {
    return lockKey;
  }
}
