package io.pointsman.sandbox.router;

import io.pointsman.engine.mysql.WriteBarrier;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;

/**
 * What a MySQL error means for a statement that was sent: the one place that decides whether it is
 * safe to retry.
 */
enum SqlFailure {
  /**
   * The primary refused without applying anything: pointsman's write barrier (a trigger raising
   * SQLSTATE 45000 with "denied" in its message) or a read-only server (the old primary of a
   * failover). Retrying elsewhere, or later, is safe.
   */
  REFUSED,
  /** The connection broke or the statement timed out after it was sent: it may or may not have been applied. */
  UNKNOWN_OUTCOME,
  /** MySQL rejected the statement itself (syntax, duplicate key, ...); it was not applied, and retrying will not help. */
  REJECTED;

  private static final int ER_OPTION_PREVENTS_STATEMENT = 1290; // --read-only
  private static final int ER_READ_ONLY_MODE = 1836; // MySQL super_read_only
  private static final int ER_QUERY_INTERRUPTED = 1317; // a query timeout's KILL QUERY

  static SqlFailure classify(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String message = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    // Any 45000 that says "denied": pointsman's barrier (WriteBarrier.DENIED_MESSAGE_PREFIX) and
    // hand-made deny triggers alike. A trigger's SIGNAL aborts the statement, so nothing was applied.
    if (WriteBarrier.DENIED_SQLSTATE.equals(state) && message.contains("denied")) {
      return REFUSED;
    }
    if (e.getErrorCode() == ER_OPTION_PREVENTS_STATEMENT || e.getErrorCode() == ER_READ_ONLY_MODE) {
      return REFUSED;
    }
    if (state.startsWith("08") || e instanceof SQLTimeoutException || e instanceof SQLRecoverableException
        || e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
        || e.getErrorCode() == ER_QUERY_INTERRUPTED) {
      return UNKNOWN_OUTCOME;
    }
    return REJECTED;
  }
}
