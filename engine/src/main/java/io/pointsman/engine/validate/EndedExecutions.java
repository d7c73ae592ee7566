package io.pointsman.engine.validate;

import java.util.Collection;
import java.util.Set;

/**
 * Which Temporal executions have ended, so that a lock key still naming one of them (its value's
 * {@code TemporalWorkflowId} and {@code TemporalRunId}) is known to be left behind. The topology
 * alone cannot tell: a lock key with a live lease looks the same whether its holder still runs or
 * ended without releasing it.
 */
@FunctionalInterface
public interface EndedExecutions {
  /** Nothing is known to have ended: lock keys are judged by their leases alone. */
  EndedExecutions NONE = (workflowId, runId) -> false;

  /**
   * Whether the execution has ended (completed, failed, cancelled, terminated, timed out).
   *
   * @param runId the lock value's run id; null when it names none (then: the workflow id's latest run)
   */
  boolean hasEnded(String workflowId, String runId);

  /** These workflow ids have ended, every run of them. */
  static EndedExecutions ofWorkflowIds(Collection<String> workflowIds) {
    Set<String> ids = Set.copyOf(workflowIds);
    return (workflowId, runId) -> ids.contains(workflowId);
  }
}
