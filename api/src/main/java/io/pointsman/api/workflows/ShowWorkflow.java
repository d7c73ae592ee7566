package io.pointsman.api.workflows;

import io.pointsman.api.request.ShowRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * {@code pointsman MoveTables|Reshard show|status}: the workflow's streams and traffic state as
 * vtctldclient prints them, changing nothing. A workflow because the CLI talks to Temporal only;
 * the reads run on a worker. Answers the protobuf JSON of vtctld's response.
 */
@WorkflowInterface
public interface ShowWorkflow {
  @WorkflowMethod(name = Pointsman.SHOW_WORKFLOW)
  String show(ShowRequest request);
}
