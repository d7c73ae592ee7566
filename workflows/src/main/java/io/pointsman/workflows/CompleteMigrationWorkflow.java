package io.pointsman.workflows;

import io.pointsman.workflows.api.CompleteRequest;
import io.pointsman.workflows.model.ActionResult;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** vtctldclient MoveTables|Reshard Complete: drop the sources and the workflow's artifacts. */
@WorkflowInterface
public interface CompleteMigrationWorkflow extends ProgressQuery {
  @WorkflowMethod(name = Pointsman.COMPLETE_MIGRATION)
  ActionResult complete(CompleteRequest request);
}
