package io.pointsman.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.failure.TerminatedFailure;
import io.temporal.failure.TimeoutFailure;
import java.io.PrintWriter;
import java.util.List;

/** How an action's outcome is printed: vtctldclient's text for a result, one line for a failure. */
final class Results {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Results() {}

  /**
   * Prints the result as vtctldclient does: the summary, then the start and current state (for
   * MirrorTraffic too, whose result always has both), or for a dry run the plan's lines.
   *
   * @param queriedPlan the plan the progress query showed, printed when the result carries none
   */
  static void print(PrintWriter out, ActionResult result, boolean dryRun, List<String> queriedPlan) {
    out.println();
    out.println(result.summary());
    if (dryRun) {
      List<String> lines = plan(result, queriedPlan);
      if (lines.isEmpty()) {
        out.println("No changes required");
      }
      lines.forEach(out::println);
    } else {
      if (notBlank(result.startState()) || notBlank(result.currentState())) {
        out.println();
      }
      if (notBlank(result.startState())) {
        out.println("Start State: " + result.startState());
      }
      if (notBlank(result.currentState())) {
        out.println("Current State: " + result.currentState());
      }
    }
    out.flush();
  }

  /**
   * Prints the result as vtctldclient's {@code --format json} does: the response message of the
   * action's vtctld RPC with its .proto field names and every field — WorkflowSwitchTrafficResponse
   * (SwitchTraffic, ReverseTraffic), WorkflowMirrorTrafficResponse (MirrorTraffic), MoveTablesCompleteResponse
   * (Complete) or WorkflowDeleteResponse (Cancel; {@code details}, the per-tablet deletions, is empty:
   * pointsman does not report them).
   */
  static void printJson(PrintWriter out, String workflowType, ActionResult result, List<String> queriedPlan) {
    ObjectNode n = JSON.createObjectNode();
    n.put("summary", result.summary() == null ? "" : result.summary());
    List<String> plan = plan(result, queriedPlan);
    switch (workflowType) {
      case Pointsman.COMPLETE_MIGRATION -> plan.forEach(n.putArray("dry_run_results")::add);
      case Pointsman.CANCEL_MIGRATION -> n.putArray("details");
      case Pointsman.MIRROR_TRAFFIC -> states(n, result);
      default -> {
        states(n, result);
        plan.forEach(n.putArray("dry_run_results")::add);
      }
    }
    out.println(n.toPrettyString());
    out.flush();
  }

  /**
   * Whether the JSON response of the workflow type has a field for a dry run's plan. Vitess gives
   * MirrorTraffic no dry run, and Cancel's dry run is pointsman's own: their messages have none.
   */
  static boolean jsonCarriesPlan(String workflowType) {
    return !workflowType.equals(Pointsman.MIRROR_TRAFFIC) && !workflowType.equals(Pointsman.CANCEL_MIGRATION);
  }

  /** A dry run's plan: the result's, else the one the progress query showed. */
  static List<String> plan(ActionResult result, List<String> queriedPlan) {
    return result.dryRunResults().isEmpty() ? queriedPlan : result.dryRunResults();
  }

  private static void states(ObjectNode n, ActionResult result) {
    n.put("start_state", result.startState() == null ? "" : result.startState());
    n.put("current_state", result.currentState() == null ? "" : result.currentState());
  }

  /** Why the workflow did not succeed, in the words of the failure that stopped it. */
  static String failureMessage(Throwable failure) {
    Throwable t = failure instanceof WorkflowFailedException wfe && wfe.getCause() != null ? wfe.getCause() : failure;
    while (t instanceof ActivityFailure || t instanceof ChildWorkflowFailure) {
      if (t.getCause() == null) {
        break;
      }
      t = t.getCause();
    }
    if (t instanceof ApplicationFailure af) {
      return af.getOriginalMessage();
    }
    if (t instanceof CanceledFailure) {
      return "the workflow was cancelled";
    }
    if (t instanceof TerminatedFailure tf) {
      return "the workflow was terminated" + (notBlank(tf.getOriginalMessage()) ? ": " + tf.getOriginalMessage() : "");
    }
    if (t instanceof TimeoutFailure tf) {
      return "the workflow timed out (" + tf.getTimeoutType() + ")";
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }
}
