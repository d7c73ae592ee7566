package io.pointsman.api.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** vtctldclient MoveTables|Reshard Complete: drop the sources and the workflow's artifacts. */
@WorkflowInterface
public interface CompleteMigrationWorkflow extends ProgressQuery, LockWaitReport {
  @WorkflowMethod(name = Pointsman.COMPLETE_MIGRATION)
  ActionResult complete(CompleteRequest request);
}
