package io.pointsman.cli;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.client.TemporalConnection;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts an action's workflow under its canonical id and follows it: polls the {@code progress}
 * query and prints each step as it starts and ends, then prints the result (exit 0) or the
 * failure's message (exit 1).
 */
final class ActionRunner {
  static final Duration POLL = Duration.ofMillis(500);
  /** A progress query that takes longer has no worker to answer it now; the next poll asks again. */
  private static final Duration QUERY_WAIT = Duration.ofSeconds(3);
  /** Queries run here, so one stuck on the server's query timeout never blocks the CLI. */
  private static final Executor QUERIES = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "pointsman-cli-query");
    t.setDaemon(true);
    return t;
  });
  /** After this long without a single step, the CLI says a worker may be missing. */
  private static final Duration WORKER_HINT_AFTER = Duration.ofSeconds(10);

  private final TemporalConnection temporal;
  /** Where the steps go: standard output for text; standard error for json, so stdout is the result alone. */
  private final PrintWriter out;
  private final PrintWriter resultOut;
  private final PrintWriter err;
  private final OutputFormat format;

  ActionRunner(TemporalConnection temporal, PrintWriter out, PrintWriter err) {
    this(temporal, out, err, OutputFormat.TEXT);
  }

  ActionRunner(TemporalConnection temporal, PrintWriter out, PrintWriter err, OutputFormat format) {
    this.temporal = temporal;
    this.out = format == OutputFormat.JSON ? err : out;
    this.resultOut = out;
    this.err = err;
    this.format = format;
  }

  int run(ActionRun run) {
    String id = Pointsman.workflowId(run.workflowType(), run.targetKeyspace(), run.workflow());
    WorkflowClient client = temporal.client();
    WorkflowStub stub = client.newUntypedWorkflowStub(run.workflowType(), WorkflowOptions.newBuilder()
        .setWorkflowId(id)
        .setTaskQueue(temporal.options().taskQueue())
        // a second start of the same action while one runs is refused, never merged or restarted
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setStaticSummary(run.group() + " " + run.command() + (run.dryRun() ? " --dry-run " : " ") + run.subject())
        .build());
    WorkflowExecution execution;
    try {
      execution = stub.start(run.request());
    } catch (WorkflowExecutionAlreadyStarted e) {
      err.println("error: a " + run.command() + " of " + run.subject() + " is already running as workflow " + id
          + " (run " + e.getExecution().getRunId() + "); follow it with: " + run.statusCommand());
      err.flush();
      return 1;
    }
    out.println(run.group() + " " + run.command() + (run.dryRun() ? " (dry run) " : " ") + run.subject()
        + ": workflow " + id + ", run " + execution.getRunId());
    out.flush();
    return follow(run, stub);
  }

  private int follow(ActionRun run, WorkflowStub stub) {
    CompletableFuture<ActionResult> result = stub.getResultAsync(ActionResult.class);
    ProgressPrinter printer = new ProgressPrinter(out);
    AtomicBoolean following = new AtomicBoolean(true);
    Thread hint = new Thread(() -> {
      if (following.get()) {
        err.println();
        err.println("Stopped following; the workflow keeps running. Follow it with: " + run.statusCommand());
        err.flush();
      }
    }, "pointsman-cli-interrupted");
    Runtime.getRuntime().addShutdownHook(hint);
    try {
      long start = System.nanoTime();
      boolean hinted = false;
      while (!result.isDone()) {
        query(stub).ifPresent(printer::show);
        if (!hinted && !printer.sawAnyStep() && System.nanoTime() - start > WORKER_HINT_AFTER.toNanos()) {
          out.println("  (no step has started yet: is a pointsman worker polling task queue "
              + temporal.options().taskQueue() + " in namespace " + temporal.options().namespace() + "?)");
          out.flush();
          hinted = true;
        }
        waitFor(result);
      }
      query(stub).ifPresent(printer::show); // the steps that ended since the last poll
      ActionResult r = result.get();
      if (format == OutputFormat.JSON) {
        Results.printJson(resultOut, run.workflowType(), r, printer.plan());
        if (run.dryRun() && !Results.jsonCarriesPlan(run.workflowType())) {
          // stdout stays vtctld's message; the plan it has no field for goes with the steps
          Results.plan(r, printer.plan()).forEach(out::println);
          out.flush();
        }
      } else {
        Results.print(out, r, run.dryRun(), printer.plan());
      }
      return 0;
    } catch (ExecutionException e) {
      err.println("error: " + run.command() + " of " + run.subject() + " failed: "
          + Results.failureMessage(e.getCause()));
      err.flush();
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("Interrupted; the workflow keeps running. Follow it with: " + run.statusCommand());
      err.flush();
      return 1;
    } finally {
      following.set(false);
      try {
        Runtime.getRuntime().removeShutdownHook(hint);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is exiting: the hook runs and prints nothing, since we are no longer following
      }
    }
  }

  private static void waitFor(CompletableFuture<ActionResult> result) throws InterruptedException {
    try {
      result.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // still running, or ended: the loop condition tells, and the caller reads the outcome
    }
  }

  /**
   * The progress, or nothing while it cannot be had: before the first workflow task ran, when no
   * worker answers (a query then waits for the server's query timeout, so it is cut short here), or
   * when a workflow ended before it tracked any step.
   */
  static Optional<Progress> query(WorkflowStub stub) {
    CompletableFuture<Progress> answer = CompletableFuture.supplyAsync(() -> stub.query("progress", Progress.class),
        QUERIES);
    try {
      return Optional.ofNullable(answer.get(QUERY_WAIT.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
