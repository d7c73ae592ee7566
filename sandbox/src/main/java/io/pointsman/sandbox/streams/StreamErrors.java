package io.pointsman.sandbox.streams;

import com.github.shyiko.mysql.binlog.network.AuthenticationException;
import com.github.shyiko.mysql.binlog.network.ServerException;
import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * The one place that decides whether a stream failure is worth retrying (a connection dropped, a
 * lock wait ran out, the server is restarting) or is permanent and puts the stream in state Error
 * (a bad filter, a missing table, refused credentials, a position the binlog no longer has).
 */
final class StreamErrors {
  /** Lock wait timeout, deadlock, server shutdown, lost connection, too many connections. */
  private static final Set<Integer> TRANSIENT_MYSQL_CODES = Set.of(1205, 1213, 1053, 2006, 2013, 1040, 1927);
  /** Access denied, and the replication error for a position the binlog does not have (1236). */
  private static final Set<Integer> PERMANENT_BINLOG_CODES = Set.of(1045, 1236);

  private StreamErrors() {}

  static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof PointsmanException p) {
        return p.retryable();
      }
      if (t instanceof AuthenticationException) {
        return false;
      }
      if (t instanceof ServerException s) {
        return !PERMANENT_BINLOG_CODES.contains(s.getErrorCode());
      }
      if (t instanceof SQLException s) {
        return isTransient(s);
      }
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private static boolean isTransient(SQLException s) {
    String state = s.getSQLState() == null ? "" : s.getSQLState();
    if (state.startsWith("28")) {
      return false;
    }
    return s instanceof SQLTransientException || s instanceof SQLRecoverableException
        || state.startsWith("08") || state.equals("40001") || TRANSIENT_MYSQL_CODES.contains(s.getErrorCode());
  }

  /** The message recorded in the stream row: what failed, without the stack. */
  static String describe(Throwable failure) {
    String m = failure.getMessage();
    String text = m == null || m.isBlank() ? failure.getClass().getSimpleName() : m;
    return StreamTable.truncate(text);
  }
}
