package io.pointsman.workflows;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator's view of one action: the {@code progress} query's state, the current details the
 * Temporal UI shows, and the SwitchPhase search attribute. Workflow code only (deterministic time).
 */
final class ProgressTracker {
  private final String action;
  private final String subject;
  private final List<StepProgress> steps = new ArrayList<>();
  private String phase = "starting";
  private List<LockToken> locks = List.of();
  private List<String> plan = List.of();

  ProgressTracker(String action, String targetKeyspace, String workflow) {
    this.action = action;
    this.subject = targetKeyspace + "." + workflow;
    Workflow.upsertTypedSearchAttributes(
        SearchAttributeUpdate.valueSet(Pointsman.TARGET_KEYSPACE, targetKeyspace),
        SearchAttributeUpdate.valueSet(Pointsman.VREPLICATION_WORKFLOW, workflow));
    phase("starting");
  }

  void phase(String newPhase) {
    phase = newPhase;
    Workflow.upsertTypedSearchAttributes(SearchAttributeUpdate.valueSet(Pointsman.SWITCH_PHASE, newPhase));
    showDetails();
  }

  String phase() {
    return phase;
  }

  int start(String step, String detail) {
    steps.add(new StepProgress(step, StepStatus.RUNNING, now(), null, detail));
    showDetails();
    return steps.size() - 1;
  }

  void finish(int index, StepStatus status, String detail) {
    StepProgress s = steps.get(index);
    steps.set(index, s.with(status, now(), detail == null ? s.detail() : detail));
    showDetails();
  }

  /**
   * Shows whom the running step waits for (acquireLocks behind another lock holder). Changes no
   * command: a signal handler's state only, so histories without the signal replay unchanged.
   */
  void waitingFor(String holder) {
    if (steps.isEmpty()) {
      return;
    }
    int last = steps.size() - 1;
    StepProgress s = steps.get(last);
    if (s.status() == StepStatus.RUNNING) {
      steps.set(last, new StepProgress(s.name(), s.status(), s.startedAt(), null, holder));
      showDetails();
    }
  }

  /** The index the next {@link #start} will return. */
  int nextIndex() {
    return steps.size();
  }

  /**
   * Shows the step at {@code index} as undone. By index, not by name: a compensation may run under
   * its step's own name (switchReads undoes switchReads), and the latest step of that name is then
   * the compensation itself.
   */
  void markCompensated(int index, String step) {
    if (index < 0 || index >= steps.size()) {
      return;
    }
    StepProgress s = steps.get(index);
    if (s.name().equals(step) && (s.status() == StepStatus.DONE || s.status() == StepStatus.FAILED)) {
      steps.set(index, s.with(StepStatus.COMPENSATED, s.finishedAt(), s.detail()));
      showDetails();
    }
  }

  void locks(LockSet held) {
    locks = held == null ? List.of() : held.locks();
  }

  void plan(List<String> lines) {
    plan = List.copyOf(lines);
  }

  Progress snapshot() {
    return new Progress(action, phase, steps, locks, plan);
  }

  private void showDetails() {
    StringBuilder md = new StringBuilder();
    md.append("**").append(action).append("** `").append(subject).append("` — phase **").append(phase).append("**");
    if (!steps.isEmpty()) {
      StepProgress last = steps.get(steps.size() - 1);
      md.append("\n\nstep ").append(steps.size()).append(": `").append(last.name()).append("` ")
          .append(last.status().name().toLowerCase());
      if (last.detail() != null && !last.detail().isEmpty()) {
        md.append(" — ").append(last.detail());
      }
    }
    if (!locks.isEmpty()) {
      md.append("\n\nlocks: ");
      md.append(String.join(", ", locks.stream().map(LockToken::resource).toList()));
    }
    Workflow.setCurrentDetails(md.toString());
  }

  private static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
