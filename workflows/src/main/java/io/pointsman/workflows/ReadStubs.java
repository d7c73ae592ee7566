package io.pointsman.workflows;

import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;

/**
 * Stubs for the read-only steps outside the write window: local activities in runs since
 * {@link Versions#LOCAL_READS} (no server round trip each, still a recorded step), activities in
 * runs from before, which replay as they ran.
 */
final class ReadStubs {
  private ReadStubs() {}

  static <T> T of(Class<T> activities) {
    return of(activities, StepOptions.step());
  }

  /** @param before the options these reads ran with as activities, which older runs keep */
  static <T> T of(Class<T> activities, ActivityOptions before) {
    return Versions.localReads()
        ? Workflow.newLocalActivityStub(activities, StepOptions.localRead())
        : Workflow.newActivityStub(activities, before);
  }
}
