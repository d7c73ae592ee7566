package io.pointsman.api.errors;

/**
 * A record changed between our read and our guarded write, and the bounded retries ran out (or the
 * caller asked for exactly one attempt). The locks were still held; re-read and retry.
 */
public final class RecordChangedException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  private final String key;

  public RecordChangedException(String key, String message) {
    super(ErrorCode.RECORD_CHANGED, message);
    this.key = key;
  }

  /** The etcd key whose mod revision no longer matched. */
  public String key() {
    return key;
  }
}
