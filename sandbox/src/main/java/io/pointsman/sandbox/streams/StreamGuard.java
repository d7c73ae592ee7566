package io.pointsman.sandbox.streams;

import io.pointsman.engine.mysql.StreamState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * Runs a worker's writes in target transactions that first lock the stream's row and check that
 * this worker may still write: the state is one it may write in, the definition is the one it
 * started from, and the position is the one it last saw or wrote. Anything else rolls back and
 * {@link Halted} ends the worker without an error: a stop, a deletion, a redefinition, or another
 * writer (a worker not yet gone, an operator resetting {@code pos}) got there first.
 */
final class StreamGuard {
  /** The stream was stopped, deleted, redefined or moved by someone else; the worker ends. */
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
  /** The position the row must hold; null until {@link #begin} read it. */
  private String expectedPos;

  StreamGuard(StreamTable table, StreamRow definition) {
    this.table = table;
    this.definition = definition;
  }

  /** Reads the row as this worker's starting point: the position it will check from now on. */
  StreamRow begin(Connection c, Set<StreamState> allowed) throws SQLException {
    StreamRow row = inTransaction(c, allowed, null, false, r -> r);
    expectedPos = row.pos();
    return row;
  }

  /**
   * Runs {@code body} in one transaction after the checks; commits.
   *
   * @param writesPos the position the body stores, or null when it leaves {@code pos} alone
   */
  <T> T inTransaction(Connection c, Set<StreamState> allowed, String writesPos, Body<T> body) throws SQLException {
    if (expectedPos == null) {
      throw new IllegalStateException("begin() must read the row first");
    }
    T result = inTransaction(c, allowed, writesPos, true, body);
    if (writesPos != null) {
      expectedPos = writesPos;
    }
    return result;
  }

  /** Runs {@code body} if the stream may still run, whatever its position (recording an error). */
  <T> T ifRunnable(Connection c, Set<StreamState> allowed, Body<T> body) throws SQLException {
    return inTransaction(c, allowed, null, false, body);
  }

  private <T> T inTransaction(Connection c, Set<StreamState> allowed, String writesPos, boolean checkPos,
      Body<T> body) throws SQLException {
    try {
      StreamRow row = table.lock(c, definition.id())
          .orElseThrow(() -> new Halted("stream " + definition.id() + " was deleted"));
      if (row.parsedState().filter(allowed::contains).isEmpty()) {
        throw new Halted("stream " + definition.id() + " is " + row.state());
      }
      if (!row.sameDefinition(definition)) {
        throw new Halted("stream " + definition.id() + " was redefined");
      }
      if (checkPos && !row.pos().equals(expectedPos)) {
        throw new Halted("the position of stream " + definition.id() + " was moved to '" + row.pos()
            + "' by another writer");
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
