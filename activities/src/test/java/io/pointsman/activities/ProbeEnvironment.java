package io.pointsman.activities;

import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/**
 * The SDK's test environment with one worker running a probe workflow and its activity: what a test
 * of an activity's view of its own context (local or not, its timeouts) needs, and nothing more.
 */
final class ProbeEnvironment implements AutoCloseable {
  private static final String QUEUE = "probe";

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  ProbeEnvironment(Class<?> workflowImplementation, Object activityImplementation) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(workflowImplementation);
    worker.registerActivitiesImplementations(activityImplementation);
    env.start();
  }

  /** A new run of the probe workflow. */
  <T> T workflow(Class<T> type) {
    return env.getWorkflowClient().newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(QUEUE).build());
  }

  @Override
  public void close() {
    env.close();
  }
}
