package io.pointsman.workflows;

import io.pointsman.api.model.Progress;
import io.pointsman.api.workflows.LockWaitReport;
import io.pointsman.api.workflows.ProgressQuery;
import java.util.List;

/**
 * What every locking pointsman action answers besides its own method: the {@code progress} query
 * (a placeholder until the action has read its input) and the {@code lockWait} signal.
 */
abstract class ActionWorkflow implements ProgressQuery, LockWaitReport {
  private final String action;
  /** Set once the input is read; queries and signals before that see a starting action. */
  protected ProgressTracker progress;

  ActionWorkflow(String action) {
    this.action = action;
  }

  @Override
  public final void lockWait(String waitingFor) {
    if (progress != null) {
      progress.waitingFor(waitingFor);
    }
  }

  @Override
  public final Progress progress() {
    return progress == null ? new Progress(action, "starting", List.of(), List.of(), List.of()) : progress.snapshot();
  }
}
