package io.pointsman.e2e;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.engine.validate.EndedExecutions;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;

/**
 * The validator's knowledge of ended executions, asked of a Temporal server: a lock value's
 * execution has ended when the server describes it as anything but running. One the server does
 * not know (another namespace or server) is not known to have ended.
 */
public final class TemporalEndedExecutions {
  private TemporalEndedExecutions() {}

  public static EndedExecutions of(WorkflowClient client) {
    return (workflowId, runId) -> {
      try {
        WorkflowExecutionStatus status = client.getWorkflowServiceStubs().blockingStub()
            .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)
                    .setRunId(runId == null ? "" : runId))
                .build())
            .getWorkflowExecutionInfo().getStatus();
        return status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          return false;
        }
        throw e;
      }
    };
  }
}
