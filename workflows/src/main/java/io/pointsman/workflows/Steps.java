package io.pointsman.workflows;

import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.WorkflowState;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs each step as its own activity call with a readable summary, records it in the progress,
 * and races it against lock loss: when holdLocks reports a lost lock while a step runs, the step
 * is cancelled, the workflow waits until it has stopped, and {@link LockLostSignal} is raised.
 */
final class Steps {
  private final ProgressTracker progress;
  private final LockKeeper locks;

  Steps(ProgressTracker progress, LockKeeper locks) {
    this.progress = progress;
    this.locks = locks;
  }

  ProgressTracker progress() {
    return progress;
  }

  /** Runs a read-only or mutating step; mutating ones must be given the current LockSet inside {@code call}. */
  <R> R run(String name, String detail, Functions.Func<R> call) {
    int index = progress.start(name, detail);
    CompletablePromise<R> done = Workflow.newPromise();
    CancellationScope scope = Workflow.newCancellationScope(
        () -> Async.function(call).handle((value, failure) -> {
          if (failure == null) {
            done.complete(value);
          } else {
            done.completeExceptionally(failure);
          }
          return null;
        }));
    StepSummaries.begin(name, detail);
    try {
      scope.run();
      Workflow.await(() -> done.isCompleted() || (locks != null && locks.lost()));
    } catch (CanceledFailure workflowCancelled) {
      waitUntilStopped(scope, done);
      progress.finish(index, StepStatus.FAILED, "cancelled with the workflow");
      throw workflowCancelled;
    } finally {
      // the step's activity was scheduled before its first result could end the wait
      StepSummaries.end();
    }
    if (!done.isCompleted()) {
      String why = locks.loss().get();
      waitUntilStopped(scope, done);
      progress.finish(index, StepStatus.FAILED, "cancelled: lock lost (" + why + ")");
      throw new LockLostSignal("lock lost while " + name + " ran: " + why, null);
    }
    try {
      R value = done.get();
      progress.finish(index, StepStatus.DONE, describe(value, detail));
      return value;
    } catch (RuntimeException e) {
      progress.finish(index, StepStatus.FAILED, Failures.message(e));
      if (Failures.isLockLost(e)) {
        throw new LockLostSignal(name + " found its lock lost: " + Failures.message(e), e);
      }
      throw e;
    }
  }

  void run(String name, String detail, Functions.Proc call) {
    run(name, detail, () -> {
      call.apply();
      return null;
    });
  }

  /** Cancels the step and waits, detached from any workflow cancellation, until its activity has stopped. */
  private static void waitUntilStopped(CancellationScope scope, CompletablePromise<?> done) {
    scope.cancel();
    Workflow.newDetachedCancellationScope(() -> {
      try {
        done.get();
      } catch (RuntimeException expected) {
        // a cancelled step ends with a cancellation failure; what matters is that it ended
      }
    }).run();
  }

  /** What a step's result says in its progress line: a few words an operator reads, not the result's record. */
  static String describe(Object value, String detail) {
    if (value == null) {
      return detail;
    }
    String s;
    if (value instanceof List<?> list && !list.isEmpty() && list.stream().allMatch(SavedStream.class::isInstance)) {
      s = list.size() + (list.size() == 1 ? " stream saved: " : " streams saved: ") + list.stream()
          .map(SavedStream.class::cast).map(v -> v.workflow() + " #" + v.id() + " on " + v.shard())
          .collect(Collectors.joining(", "));
    } else if (value instanceof SequencePlan plan) {
      s = plan.initialize().isEmpty() ? "no sequence to initialize" : "initialize " + plan.initialize().stream()
          .map(m -> m.usingTable() + "." + m.usingColumn() + " from " + m.qualifiedBackingTable())
          .collect(Collectors.joining(", "));
      s += plan.resetSourceSequences() ? "; reset the source's sequences" : "";
    } else if (value instanceof MigrationInfo m) {
      s = m.migrationType() + " " + m.sourceKeyspace() + m.sourceShards() + " → " + m.targetKeyspace()
          + m.targetShards() + ", tables " + m.tables() + ", " + m.streams().size() + " streams"
          + (m.frozen() ? ", frozen" : "");
    } else if (value instanceof WorkflowState w) {
      s = w.summary();
    } else if (value instanceof ShardPositions p) {
      s = "source " + p.source() + ", target " + p.target();
    } else {
      s = value.toString();
    }
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
