package io.pointsman.sandbox.streams;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * Runs a worker's writes in target transactions that first lock the stream's row and check that
 * the stream may still write: in an allowed state, with the definition the worker started from.
 * Otherwise the transaction rolls back and {@link Halted} unwinds the worker without an error.
 */
final class StreamGuard {
  /** The stream was stopped, deleted or redefined; the worker ends and leaves the row as it is. */
  static final class Halted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Halted(String message) {
      super(message, null, false, false);
    }
  }

  /** A transaction body; it must not commit or roll back itself. */
  @FunctionalInterface
  interface Body<T> {
    T run(StreamRow row) throws SQLException;
  }

  private final StreamTable table;
  private final StreamRow definition;

  StreamGuard(StreamTable table, StreamRow definition) {
    this.table = table;
    this.definition = definition;
  }

  <T> T inTransaction(Connection c, Set<StreamState> allowed, Body<T> body) throws SQLException {
    try {
      StreamRow row = table.lock(c, definition.id())
          .orElseThrow(() -> new Halted("stream " + definition.id() + " was deleted"));
      if (row.parsedState().filter(allowed::contains).isEmpty()) {
        throw new Halted("stream " + definition.id() + " is " + row.state());
      }
      if (!row.sameDefinition(definition)) {
        throw new Halted("stream " + definition.id() + " was redefined");
      }
      T result = body.run(row);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      Sql.rollbackQuietly(c, e);
      throw e;
    }
  }
}
