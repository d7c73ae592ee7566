package io.pointsman.api.errors;

/**
 * What went wrong, in words an operator and the retry policy both understand. The name of each code
 * is the Temporal failure type used when a {@link PointsmanException} leaves an activity, so
 * workflows and {@code RetryOptions.setDoNotRetry} refer to these names.
 */
public enum ErrorCode {
  /** Bad input: a name, a value or a combination that can never work. Not retryable. */
  INVALID_ARGUMENT(false),
  /** A record or resource that must exist does not (keyspace, shard, tablet). Not retryable. */
  NOT_FOUND(false),
  /** A record that must not exist yet already does. Not retryable. */
  ALREADY_EXISTS(false),
  /** The state does not allow the action (workflow frozen, copy in progress, ...). Not retryable. */
  FAILED_PRECONDITION(false),
  /** A lock we held is gone, or a higher fencing token was seen. Stop mutating; compensate under a new lock. */
  LOCK_LOST(false),
  /** A lock could not be acquired within its acquisition deadline. Retryable later. */
  LOCK_TIMEOUT(true),
  /** A record changed between our read and our write and the bounded retries ran out. Retryable. */
  RECORD_CHANGED(true),
  /** etcd or MySQL could not be reached or did not answer in time. Retryable. */
  UNAVAILABLE(true),
  /** The outcome of a write is unknown (a timeout after sending it). Re-read before retrying. */
  UNKNOWN_OUTCOME(true),
  /** A deadline of the operation itself passed (catch-up wait, drain). Retryable by the caller's choice. */
  DEADLINE_EXCEEDED(true),
  /** A bug or an impossible state. Not retryable. */
  INTERNAL(false);

  private final boolean retryable;

  ErrorCode(boolean retryable) {
    this.retryable = retryable;
  }

  /** Whether trying the same call again may succeed without anyone changing anything. */
  public boolean retryable() {
    return retryable;
  }
}
