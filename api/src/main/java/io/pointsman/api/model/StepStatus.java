package io.pointsman.api.model;

/** Where one step of an action stands. */
public enum StepStatus {
  PENDING,
  RUNNING,
  DONE,
  FAILED,
  COMPENSATED,
  SKIPPED
}
