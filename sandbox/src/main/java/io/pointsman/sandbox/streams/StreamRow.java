package io.pointsman.sandbox.streams;

import io.pointsman.engine.mysql.StreamState;
import java.util.Objects;
import java.util.Optional;

/** The columns of a {@code vreplication} row the runner acts on. */
record StreamRow(long id, String workflow, String source, String pos, String stopPos, String state, String message,
    String dbName) {
  StreamRow {
    pos = pos == null ? "" : pos;
    stopPos = stopPos == null ? "" : stopPos;
    source = source == null ? "" : source;
    message = message == null ? "" : message;
  }

  /** The state, or empty for a value Vitess does not define. */
  Optional<StreamState> parsedState() {
    for (StreamState s : StreamState.values()) {
      if (s.column().equals(state)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** Whether the runner executes the stream: Vitess runs Init, Copying and Running streams. */
  boolean runnable() {
    return parsedState().filter(s -> s == StreamState.INIT || s == StreamState.COPYING || s == StreamState.RUNNING)
        .isPresent();
  }

  /** Whether a running worker started from {@code other} must restart to see this row (Vitess restarts on any update). */
  boolean sameDefinition(StreamRow other) {
    return Objects.equals(source, other.source) && Objects.equals(stopPos, other.stopPos)
        && Objects.equals(dbName, other.dbName);
  }
}
