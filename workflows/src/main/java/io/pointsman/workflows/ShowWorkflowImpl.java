package io.pointsman.workflows;

import io.pointsman.api.activities.ShowActivities;
import io.pointsman.api.request.ShowRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ShowWorkflow;
import io.temporal.workflow.Workflow;

public class ShowWorkflowImpl implements ShowWorkflow {

  @Override
  public String show(ShowRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.SHOW_WORKFLOW);
    }
    return Workflow.newActivityStub(ShowActivities.class, StepOptions.step()).showWorkflow(request);
  }
}
