package io.pointsman.api.workflows;

import io.pointsman.api.model.Progress;
import io.temporal.workflow.QueryMethod;

/** The query every pointsman workflow answers, from the CLI or the Temporal UI. */
public interface ProgressQuery {
  @QueryMethod(name = "progress", description = "Phase, steps with state and timings, locks held, and the dry-run plan")
  Progress progress();
}
