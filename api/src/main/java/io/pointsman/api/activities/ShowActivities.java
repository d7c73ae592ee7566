package io.pointsman.api.activities;

import io.pointsman.api.request.ShowRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** vtctld's GetWorkflows and WorkflowStatus for one workflow, run by a worker (which has etcd and the primaries). */
@ActivityInterface
public interface ShowActivities {
  /**
   * Reads the workflow's streams and traffic state, changing nothing, and answers vtctld's message
   * (GetWorkflowsResponse or WorkflowStatusResponse) as the protobuf JSON vtctldclient prints.
   */
  @ActivityMethod(name = "showWorkflow")
  String showWorkflow(ShowRequest request);
}
