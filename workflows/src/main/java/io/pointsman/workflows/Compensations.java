package io.pointsman.workflows;

import io.pointsman.api.model.StepStatus;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;

/**
 * The undo list of an action. Each compensation is registered before its step runs, because a
 * step that timed out may still have taken effect; so every compensation must also be harmless
 * when its step never happened. They run in reverse order, each as a recorded step, and a failing
 * one does not stop the rest (Vitess aggregates cancel errors the same way).
 */
final class Compensations {
  private static final Logger log = Workflow.getLogger(Compensations.class);

  private static final int NOT_STARTED = -1;

  /** {@code stepIndex} is {@link #NOT_STARTED} until the step it undoes starts (see {@link #addAhead}). */
  private static final class Compensation {
    final String undoes;
    int stepIndex;
    final String name;
    final String detail;
    final Functions.Proc action;

    Compensation(String undoes, int stepIndex, String name, String detail, Functions.Proc action) {
      this.undoes = undoes;
      this.stepIndex = stepIndex;
      this.name = name;
      this.detail = detail;
      this.action = action;
    }
  }

  private final ProgressTracker progress;
  private final Deque<Compensation> stack = new ArrayDeque<>();

  Compensations(ProgressTracker progress) {
    this.progress = progress;
  }

  /**
   * Registers the compensation of the step about to start; call it right before that step's
   * {@link Steps#run}, which is how the step's progress entry is known.
   *
   * @param undoes the step this compensation undoes; it is shown as compensated once this ran
   * @param name the compensating step, named like the Vitess step that does the same
   */
  void add(String undoes, String name, String detail, Functions.Proc action) {
    stack.push(new Compensation(undoes, progress.nextIndex(), name, detail, action));
  }

  /**
   * Registers the compensation of a step that has not started yet and may never start in this run
   * but may have run in an earlier, unrecorded pass of it (a local activity chain whose worker died
   * is run again from its start, against what the dead pass changed). {@link #starting} ties it
   * to the step when that starts; until then it runs on failure but marks no step.
   */
  void addAhead(String undoes, String name, String detail, Functions.Proc action) {
    stack.push(new Compensation(undoes, NOT_STARTED, name, detail, action));
  }

  /** The step {@code undoes} is about to start: its compensation registered ahead now marks it. */
  void starting(String undoes) {
    for (Compensation c : stack) {
      if (c.undoes.equals(undoes) && c.stepIndex == NOT_STARTED) {
        c.stepIndex = progress.nextIndex();
        return;
      }
    }
  }

  boolean isEmpty() {
    return stack.isEmpty();
  }

  /** After the point of no return nothing may be undone. */
  void clear() {
    stack.clear();
  }

  /**
   * Runs every compensation, newest first. A lost lock during compensation is re-acquired and the
   * same compensation retried (they are idempotent), a bounded number of times.
   *
   * @return the failures, empty when everything was undone
   */
  List<String> run(Steps steps, LockKeeper locks) {
    List<String> failures = new ArrayList<>();
    while (!stack.isEmpty()) {
      Compensation c = stack.pop();
      for (int attempt = 1; ; attempt++) {
        try {
          steps.run(c.name, "compensation: " + c.detail, c.action);
          progress.markCompensated(c.stepIndex, c.undoes);
          break;
        } catch (LockLostSignal lost) {
          if (attempt >= 3) {
            failures.add(c.name + ": " + lost.getMessage());
            break;
          }
          log.warn("lock lost during compensation {}, re-acquiring: {}", c.name, lost.getMessage());
          locks.reacquire();
        } catch (RuntimeException e) {
          failures.add(c.name + ": " + Failures.message(e));
          break;
        }
      }
    }
    return failures;
  }
}
