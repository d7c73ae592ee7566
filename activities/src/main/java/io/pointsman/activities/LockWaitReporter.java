package io.pointsman.activities;

import io.pointsman.api.workflows.LockWaitReport;
import io.pointsman.engine.lock.LockWait;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator whom {@code acquireLocks} waits for: as the activity's heartbeat details (the
 * Temporal UI shows them on the pending activity) and as a {@code lockWait} signal to the workflow,
 * whose {@code progress} query and current details then name the holder. Once per holder, not per
 * poll. Reporting never fails the acquisition.
 */
final class LockWaitReporter implements LockWait.Listener {
  private static final Logger log = LoggerFactory.getLogger(LockWaitReporter.class);
  private final ActivityExecutionContext context;

  LockWaitReporter(ActivityExecutionContext context) {
    this.context = context;
  }

  @Override
  public void onWait(LockWait wait) {
    String line = wait.describe();
    log.info("acquireLocks is {}", line);
    ActivityInfo info = context.getInfo();
    if (!info.isLocal()) {
      try {
        context.heartbeat(line);
      } catch (RuntimeException e) {
        log.debug("Could not record the lock wait as heartbeat details: {}", e.toString());
      }
    }
    try {
      context.getWorkflowClient()
          .newUntypedWorkflowStub(info.getWorkflowId(), Optional.of(info.getRunId()), Optional.empty())
          .signal(LockWaitReport.SIGNAL, line);
    } catch (RuntimeException e) {
      log.debug("Could not signal the lock wait to workflow {}: {}", info.getWorkflowId(), e.toString());
    }
  }
}
