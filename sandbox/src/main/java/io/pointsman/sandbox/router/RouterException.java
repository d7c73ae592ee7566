package io.pointsman.sandbox.router;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.Optional;

/**
 * A statement the router could not complete. The code says what the caller may assume:
 * {@link ErrorCode#DEADLINE_EXCEEDED} (held for the whole buffer window, not applied),
 * {@link ErrorCode#UNKNOWN_OUTCOME} (the connection failed after sending: it may or may not have
 * been applied), {@link ErrorCode#UNAVAILABLE} (not sent: no connection, buffer full, router
 * closed or interrupted), {@link ErrorCode#NOT_FOUND} / {@link ErrorCode#INVALID_ARGUMENT} /
 * {@link ErrorCode#FAILED_PRECONDITION} (cannot be routed, or MySQL rejected the statement).
 */
public final class RouterException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  private final String table;
  private final String keyspace;
  private final String shard;

  RouterException(ErrorCode code, String table, String keyspace, String shard, String message, Throwable cause) {
    super(code, message, cause);
    this.table = table;
    this.keyspace = keyspace;
    this.shard = shard;
  }

  static RouterException of(ErrorCode code, String table, String message) {
    return new RouterException(code, table, null, null, message, null);
  }

  /** The table as the statement named it. */
  public String table() {
    return table;
  }

  /** The keyspace the statement was routed to, when routing got that far. */
  public Optional<String> keyspace() {
    return Optional.ofNullable(keyspace);
  }

  /** The shard the statement was routed to, when routing got that far. */
  public Optional<String> shard() {
    return Optional.ofNullable(shard);
  }
}
