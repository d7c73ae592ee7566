package io.pointsman.api.model;

import io.pointsman.api.lock.LockToken;
import java.util.List;

/**
 * The answer of every pointsman workflow's {@code progress} query.
 *
 * @param phase the current phase (also the SwitchPhase search attribute)
 * @param steps every step so far, in order, with its state, timings and detail
 * @param locks the locks held right now
 * @param plan for a dry run, the lines of the plan; else empty
 */
public record Progress(String action, String phase, List<StepProgress> steps, List<LockToken> locks,
    List<String> plan) {
  public Progress {
    steps = List.copyOf(steps);
    locks = List.copyOf(locks);
    plan = List.copyOf(plan);
  }
}
