package io.pointsman.sandbox.streams;

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

  Optional<StreamState> parsedState() {
    return StreamState.parse(state);
  }

  boolean runnable() {
    return parsedState().map(StreamState::runnable).orElse(false);
  }

  /** Whether a running worker started from {@code other} must restart to see this row (Vitess restarts on any update). */
  boolean sameDefinition(StreamRow other) {
    return Objects.equals(source, other.source) && Objects.equals(stopPos, other.stopPos)
        && Objects.equals(dbName, other.dbName);
  }
}
