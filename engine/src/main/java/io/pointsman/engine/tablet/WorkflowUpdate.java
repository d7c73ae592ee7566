package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.StreamState;
import java.util.Objects;
import java.util.Optional;

/**
 * A change to all streams of one workflow on one tablet (UpdateVReplicationWorkflow). Only what is
 * present is changed: the streams' cells, tablet types, filter rules and on-DDL action stay as
 * they are (the request says so with Vitess's "not given" markers, as {@code Workflow start/stop}
 * does).
 *
 * @param workflow the workflow name
 * @param state the new state (Running or Stopped), or empty to keep it
 * @param message the new message (e.g. {@code FROZEN}, or empty text to clear it), or empty to keep it
 */
public record WorkflowUpdate(String workflow, Optional<StreamState> state, Optional<String> message) {
  /** The message vtctld sets on a workflow's target streams once traffic is switched. */
  public static final String FROZEN = "FROZEN";

  public WorkflowUpdate {
    if (workflow == null || workflow.isBlank()) {
      throw PointsmanException.invalidArgument("workflow update names no workflow");
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(message, "message");
    state.ifPresent(s -> {
      if (s != StreamState.RUNNING && s != StreamState.STOPPED) {
        throw PointsmanException.invalidArgument("a workflow can be set Running or Stopped, not " + s.column());
      }
    });
    if (state.isEmpty() && message.isEmpty()) {
      throw PointsmanException.invalidArgument("workflow update of '" + workflow + "' changes nothing");
    }
  }

  /** Sets the state, keeping the message. */
  public static WorkflowUpdate state(String workflow, StreamState state) {
    return new WorkflowUpdate(workflow, Optional.of(state), Optional.empty());
  }

  /** Sets the state and the message. */
  public static WorkflowUpdate state(String workflow, StreamState state, String message) {
    return new WorkflowUpdate(workflow, Optional.of(state), Optional.of(message));
  }

  /** Stops the streams and marks them {@code FROZEN}, as vtctld does to a switched workflow's target streams. */
  public static WorkflowUpdate freeze(String workflow) {
    return state(workflow, StreamState.STOPPED, FROZEN);
  }
}
