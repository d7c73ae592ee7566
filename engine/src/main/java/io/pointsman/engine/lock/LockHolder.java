package io.pointsman.engine.lock;

/**
 * The Temporal execution that holds a lock, written into the lock's value so an operator looking at
 * etcd can find it. Every part is optional (null).
 *
 * @param temporalNamespace the Temporal namespace
 * @param workflowId the workflow id
 * @param runId the run id
 */
public record LockHolder(String temporalNamespace, String workflowId, String runId) {
  /** No Temporal execution: a lock taken by a tool or a test. */
  public static final LockHolder NONE = new LockHolder(null, null, null);
}
