package io.pointsman.api.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** vtctldclient MoveTables|Reshard Cancel: drop the targets and the workflow, before writes switched. */
@WorkflowInterface
public interface CancelMigrationWorkflow extends ProgressQuery, LockWaitReport {
  @WorkflowMethod(name = Pointsman.CANCEL_MIGRATION)
  ActionResult cancel(CancelRequest request);
}
