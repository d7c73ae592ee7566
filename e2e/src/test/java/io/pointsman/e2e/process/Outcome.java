package io.pointsman.e2e.process;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.util.concurrent.TimeUnit;

/**
 * How a switch run ended: completed with its result, or failed with the message it failed with
 * (a rolled-back switch fails, saying so).
 */
public record Outcome(ActionResult result, String failure) {

  /** Waits for the run to end; a run that does not end in three minutes is a failure of the test. */
  public static Outcome of(WorkflowStub stub) throws Exception {
    try {
      return new Outcome(stub.getResult(3, TimeUnit.MINUTES, ActionResult.class), null);
    } catch (WorkflowFailedException e) {
      Throwable cause = e.getCause();
      String message = cause instanceof ApplicationFailure af
          ? af.getType() + ": " + af.getOriginalMessage()
          : String.valueOf(cause);
      return new Outcome(null, message);
    }
  }

  /** The steps of a run as one line, {@code name:STATUS} each, for the log. */
  public static String steps(Progress progress) {
    StringBuilder b = new StringBuilder();
    for (StepProgress step : progress.steps()) {
      b.append(b.length() == 0 ? "" : ", ").append(step.name()).append(':').append(step.status());
    }
    return b.toString();
  }

  public boolean switched() {
    return result != null;
  }

  @Override
  public String toString() {
    return switched() ? "completed: " + result.currentState() : "failed: " + failure;
  }
}
