package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import java.time.Duration;

/**
 * Waits until a created workflow's copy is over: every one of its streams runs and has no table
 * left to copy, so a switch may start. Reads the streams' rows on the target primaries.
 */
public final class CopyWaiter {
  private static final Duration POLL = Duration.ofMillis(200);

  private CopyWaiter() {}

  /**
   * @throws PointsmanException DEADLINE_EXCEEDED naming the workflow when the copy did not end in time
   */
  public static void awaitCopied(Services services, CreatedWorkflow workflow, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!copied(services, workflow)) {
      if (System.nanoTime() - deadline > 0) {
        throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "the copy of " + workflow.targetKeyspace()
            + "." + workflow.workflow() + " did not finish within " + timeout.toSeconds() + "s");
      }
      try {
        Thread.sleep(POLL.toMillis()); // the interval between two reads of the streams
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw PointsmanException.unavailable("interrupted while waiting for the copy of " + workflow.workflow(), e);
      }
    }
  }

  private static boolean copied(Services services, CreatedWorkflow workflow) {
    for (CreatedWorkflow.Stream s : workflow.streams()) {
      PrimaryEndpoint target = services.primaries().resolve(workflow.targetKeyspace(), s.targetShard());
      Stream st = services.streams().read(target, (int) s.id()).orElse(null);
      if (st == null || st.state() != StreamState.RUNNING || st.copyPending()) {
        return false;
      }
    }
    return true;
  }
}
