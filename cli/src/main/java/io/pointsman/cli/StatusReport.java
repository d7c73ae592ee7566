package io.pointsman.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.client.TemporalConnection;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads the latest run of each action's canonical workflow id (describe, result, progress query)
 * and prints them oldest first. Reads only: nothing is started, signalled or cancelled.
 */
final class StatusReport {
  private static final Map<String, String> COMMANDS = Map.of(
      Pointsman.SWITCH_TRAFFIC, "SwitchTraffic",
      Pointsman.REVERSE_TRAFFIC, "ReverseTraffic",
      Pointsman.COMPLETE_MIGRATION, "Complete",
      Pointsman.CANCEL_MIGRATION, "Cancel",
      Pointsman.MIRROR_TRAFFIC, "MirrorTraffic");
  /** Read for either group: a MirrorTraffic started on a Reshard from the UI is listed with its refusal. */
  private static final List<String> TYPES = List.of(Pointsman.SWITCH_TRAFFIC, Pointsman.REVERSE_TRAFFIC,
      Pointsman.MIRROR_TRAFFIC, Pointsman.COMPLETE_MIGRATION, Pointsman.CANCEL_MIGRATION);
  private static final Duration RESULT_WAIT = Duration.ofSeconds(5);

  private final TemporalConnection temporal;
  private final PrintWriter out;

  StatusReport(TemporalConnection temporal, PrintWriter out) {
    this.temporal = temporal;
    this.out = out;
  }

  int print(String group, String targetKeyspace, String workflow) {
    WorkflowClient client = temporal.client();
    List<Run> runs = new ArrayList<>();
    for (String type : TYPES) {
      String id = Pointsman.workflowId(type, targetKeyspace, workflow);
      describe(client, id).ifPresent(d -> runs.add(new Run(type, d)));
    }
    String subject = targetKeyspace + "." + workflow;
    if (runs.isEmpty()) {
      out.println("No pointsman action has run on " + subject + " in namespace " + temporal.options().namespace()
          + " (" + group + ").");
      out.flush();
      return 0;
    }
    runs.sort(Comparator.comparing(r -> r.description.getStartTime()));
    out.println(group + " " + subject + " (namespace " + temporal.options().namespace() + "):");
    Run lastCompleted = null;
    ActionResult lastResult = null;
    for (Run run : runs) {
      WorkflowExecutionDescription d = run.description;
      WorkflowExecutionStatus status = d.getStatus();
      out.println();
      out.println(String.format("%-15s %-11s started %s%s   workflow %s, run %s", COMMANDS.get(run.type),
          statusName(status), at(d.getStartTime()),
          d.getCloseTime() != null ? ", took " + GoDurations.format(
              Duration.between(d.getStartTime(), d.getCloseTime()).truncatedTo(ChronoUnit.MILLIS)) : "",
          d.getExecution().getWorkflowId(), d.getExecution().getRunId()));
      WorkflowStub stub = client.newUntypedWorkflowStub(d.getExecution().getWorkflowId(),
          Optional.of(d.getExecution().getRunId()), Optional.empty());
      switch (status) {
        case WORKFLOW_EXECUTION_STATUS_RUNNING -> printRunning(stub);
        case WORKFLOW_EXECUTION_STATUS_COMPLETED -> {
          Optional<ActionResult> r = result(stub);
          r.ifPresent(this::printResult);
          if (r.isPresent() && Results.notBlank(r.get().currentState())) {
            lastCompleted = run;
            lastResult = r.get();
          }
        }
        default -> failure(stub).ifPresent(m -> out.println("  " + m));
      }
    }
    if (lastCompleted != null) {
      out.println();
      out.println("State after the last completed action (" + COMMANDS.get(lastCompleted.type) + ", finished "
          + at(lastCompleted.description.getCloseTime()) + "): " + lastResult.currentState());
    }
    out.flush();
    return 0;
  }

  private void printRunning(WorkflowStub stub) {
    Optional<Progress> p = ActionRunner.query(stub);
    if (p.isEmpty()) {
      out.println("  (no progress yet: the workflow has not run on a worker)");
      return;
    }
    Progress progress = p.get();
    out.println("  phase: " + progress.phase());
    for (StepProgress s : progress.steps()) {
      String took = s.startedAt() != null && s.finishedAt() != null
          ? " (" + GoDurations.format(Duration.between(s.startedAt(), s.finishedAt())) + ")" : "";
      out.println(String.format("  %-7s %s%s%s", ProgressPrinter.verb(s.status()), s.name(), took,
          Results.notBlank(s.detail()) ? ": " + s.detail() : ""));
    }
    if (!progress.locks().isEmpty()) {
      out.println("  locks held: " + String.join(", ", progress.locks().stream().map(l -> l.resource()).toList()));
    }
  }

  private void printResult(ActionResult r) {
    out.println("  " + r.summary());
    if (!r.dryRunResults().isEmpty()) {
      r.dryRunResults().forEach(l -> out.println("    " + l));
    } else if (Results.notBlank(r.currentState())) {
      out.println("  Current State: " + r.currentState());
    }
  }

  private static Optional<WorkflowExecutionDescription> describe(WorkflowClient client, String id) {
    try {
      return Optional.of(client.newUntypedWorkflowStub(id).describe());
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    } catch (WorkflowServiceException e) {
      if (e.getCause() instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static Optional<ActionResult> result(WorkflowStub stub) {
    try {
      return Optional.ofNullable(stub.getResultAsync(RESULT_WAIT.toMillis(), TimeUnit.MILLISECONDS, ActionResult.class)
          .get(RESULT_WAIT.toMillis() * 2, TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static Optional<String> failure(WorkflowStub stub) {
    try {
      stub.getResultAsync(RESULT_WAIT.toMillis(), TimeUnit.MILLISECONDS, ActionResult.class)
          .get(RESULT_WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
      return Optional.empty();
    } catch (ExecutionException e) {
      return Optional.of(Results.failureMessage(e.getCause()));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static String statusName(WorkflowExecutionStatus status) {
    return status.name().replace("WORKFLOW_EXECUTION_STATUS_", "");
  }

  private static String at(Instant t) {
    return t == null ? "-" : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private record Run(String type, WorkflowExecutionDescription description) {}
}
