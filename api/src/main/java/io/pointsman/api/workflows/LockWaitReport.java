package io.pointsman.api.workflows;

import io.temporal.workflow.SignalMethod;

/**
 * Sent by {@code acquireLocks} to its own workflow when it waits behind another holder of a lock
 * (vtctld, another pointsman action, any tool writing Vitess's lock JSON), so the {@code progress}
 * query and the Temporal UI's current details say whom the action waits for.
 */
public interface LockWaitReport {
  String SIGNAL = "lockWait";

  @SignalMethod(name = SIGNAL, description = "The holder the action's acquireLocks is waiting for")
  void lockWait(String waitingFor);
}
