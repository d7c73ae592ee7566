package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * The one place that decides what a MySQL failure means for the caller: retryable (server
 * unreachable, lock wait, deadlock) or permanent (no privilege, bad SQL, missing table). Error
 * numbers are those of both MySQL and MariaDB unless noted.
 */
public final class SqlErrors {
  static final int ER_DBACCESS_DENIED = 1044;
  static final int ER_ACCESS_DENIED = 1045;
  static final int ER_BAD_DB = 1049;
  static final int ER_NO_SUCH_TABLE = 1146;
  static final int ER_TABLEACCESS_DENIED = 1142;
  static final int ER_SPECIFIC_ACCESS_DENIED = 1227;
  static final int ER_LOCK_WAIT_TIMEOUT = 1205;
  static final int ER_LOCK_DEADLOCK = 1213;
  static final int ER_DUP_ENTRY = 1062;
  static final int ER_TRG_ALREADY_EXISTS = 1359;
  /** Creating a trigger (or routine) with the binary log on, without SUPER or log_bin_trust_function_creators. */
  static final int ER_BINLOG_CREATE_ROUTINE_NEED_SUPER = 1419;
  /** MySQL's max_execution_time and MariaDB's max_statement_time. */
  private static final Set<Integer> STATEMENT_TIMEOUTS = Set.of(3024, 1969);
  private static final Set<Integer> ACCESS_DENIED =
      Set.of(ER_DBACCESS_DENIED, ER_ACCESS_DENIED, ER_TABLEACCESS_DENIED, ER_SPECIFIC_ACCESS_DENIED, 1143, 1370,
          ER_BINLOG_CREATE_ROUTINE_NEED_SUPER);

  private SqlErrors() {}

  /** The failure as a {@link PointsmanException} whose message starts with what was being done. */
  public static PointsmanException translate(String doing, SQLException e) {
    return new PointsmanException(code(e), doing + " failed: " + describe(e), e);
  }

  static ErrorCode code(SQLException e) {
    int errno = e.getErrorCode();
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (isDeadlock(e)) {
      return ErrorCode.UNAVAILABLE;
    }
    if (errno == ER_LOCK_WAIT_TIMEOUT || STATEMENT_TIMEOUTS.contains(errno)) {
      return ErrorCode.DEADLINE_EXCEEDED;
    }
    if (ACCESS_DENIED.contains(errno) || state.startsWith("28")) {
      // Not retryable: the worker's grants must change first (Debezium's rule for SQLState 28).
      return ErrorCode.FAILED_PRECONDITION;
    }
    if (isConnectionFailure(e)) {
      return ErrorCode.UNAVAILABLE;
    }
    if (errno == ER_BAD_DB || errno == ER_NO_SUCH_TABLE) {
      return ErrorCode.NOT_FOUND;
    }
    if (WriteBarrier.isWriteDenied(e)) {
      return ErrorCode.FAILED_PRECONDITION;
    }
    return ErrorCode.INTERNAL;
  }

  /**
   * A deadlock: the server rolled the transaction back, and running it again may well succeed.
   * Connector/J also gives SQLState 40001 to a lock wait timeout (1205), which is not one: the
   * blocker is still there, and waiting the whole timeout again would only multiply the wait.
   */
  static boolean isDeadlock(SQLException e) {
    return e.getErrorCode() == ER_LOCK_DEADLOCK
        || ("40001".equals(e.getSQLState()) && e.getErrorCode() != ER_LOCK_WAIT_TIMEOUT);
  }

  /** Whether the connection itself failed, so the outcome of a statement in flight is unknown. */
  static boolean isConnectionFailure(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    return state.startsWith("08") || e instanceof SQLTransientConnectionException
        || e instanceof SQLNonTransientConnectionException || e instanceof SQLRecoverableException;
  }

  private static String describe(SQLException e) {
    StringBuilder out = new StringBuilder(reason(e));
    // The pool reports only "Connection is not available, request timed out"; the reason the server
    // or the TLS handshake gave is in its causes (a refused certificate, a missing REQUIRE SSL ...).
    Throwable shown = e;
    for (Throwable c = e.getCause(); c != null && c != shown; c = c.getCause()) {
      String message = c.getMessage();
      if (message != null && !out.toString().contains(message)) {
        out.append(": ").append(message);
      }
      shown = c;
    }
    return out + hint(e) + " (errno " + e.getErrorCode() + ", SQLState " + e.getSQLState() + ")";
  }

  /** What to check, for refusals whose server message does not say. */
  private static String hint(SQLException e) {
    if (e.getErrorCode() == ER_ACCESS_DENIED) {
      return " [check MYSQL_USER and MYSQL_PASSWORD; an account created with REQUIRE SSL is also refused this way"
          + " when MYSQL_TLS_MODE is DISABLED]";
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof java.security.cert.CertPathValidatorException) {
        return " [the server's TLS certificate is not signed by the CA in MYSQL_TLS_CA_FILE]";
      }
    }
    return "";
  }

  private static String reason(SQLException e) {
    if (e.getErrorCode() == ER_BINLOG_CREATE_ROUTINE_NEED_SUPER) {
      return "creating a trigger while the server writes a binary log needs SUPER, or log_bin_trust_function_creators"
          + " = ON on the server, besides TRIGGER on the database: " + e.getMessage();
    }
    return String.valueOf(e.getMessage());
  }
}
