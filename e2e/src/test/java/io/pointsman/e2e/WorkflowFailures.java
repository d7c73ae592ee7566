package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;

/** What a workflow run that must fail failed with, for tests that then check its type and message. */
public final class WorkflowFailures {
  private WorkflowFailures() {}

  /** Runs {@code run}, which waits for a workflow's result, and returns the application failure it ended with. */
  public static ApplicationFailure applicationFailure(Runnable run) {
    WorkflowFailedException failed = catchThrowableOfType(run::run, WorkflowFailedException.class);
    assertThat(failed).as("the workflow fails").isNotNull();
    assertThat(failed.getCause()).isInstanceOf(ApplicationFailure.class);
    return (ApplicationFailure) failed.getCause();
  }

  /**
   * The first application failure in {@code e}'s causes that carries pointsman's error type: the
   * failure a refusal raised, not a wrapper that names an exception class as its type.
   */
  public static ApplicationFailure typedFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure af && !af.getType().isEmpty()
          && !af.getType().equals(ApplicationFailure.class.getName())) {
        return af;
      }
    }
    throw new AssertionError("no typed application failure in " + e, e);
  }
}
