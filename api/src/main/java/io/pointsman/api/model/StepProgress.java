package io.pointsman.api.model;

import java.time.Instant;

/**
 * One step as the {@code progress} query shows it.
 *
 * @param name the Vitess step name, e.g. {@code stopSourceWrites}
 * @param startedAt workflow time (deterministic), null while pending
 * @param detail what the step did or why it failed
 */
public record StepProgress(String name, StepStatus status, Instant startedAt, Instant finishedAt, String detail) {
  public StepProgress with(StepStatus newStatus, Instant finished, String newDetail) {
    return new StepProgress(name, newStatus, startedAt, finished, newDetail);
  }
}
