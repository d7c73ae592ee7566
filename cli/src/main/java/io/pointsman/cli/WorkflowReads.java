package io.pointsman.cli;

import io.pointsman.api.request.ShowRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ShowWorkflow;
import io.pointsman.client.TemporalConnection;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.UUID;

/**
 * Has a worker read a workflow as vtctld's show or status does (workflow ShowWorkflow; the worker has
 * etcd and the primaries, the CLI only Temporal) and answers the protobuf JSON vtctldclient prints.
 */
final class WorkflowReads {
  /** The reads take a few queries per shard; a worker that does not answer in this time is not there. */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private WorkflowReads() {}

  static String read(TemporalConnection temporal, ShowRequest request) {
    // a fresh id each time: reads change nothing, so two may run side by side
    String id = Pointsman.workflowId(Pointsman.SHOW_WORKFLOW, request.targetKeyspace(), request.workflow()) + "-"
        + UUID.randomUUID().toString().substring(0, 8);
    ShowWorkflow wf = temporal.client().newWorkflowStub(ShowWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(temporal.options().taskQueue())
        .setWorkflowId(id)
        .setWorkflowExecutionTimeout(TIMEOUT)
        .build());
    try {
      return wf.show(request);
    } catch (WorkflowException e) {
      // the worker's words (e.g. "workflow x not found in keyspace y: ..."), not Temporal's wrapper
      throw new IllegalStateException(Results.failureMessage(e), e);
    }
  }
}
