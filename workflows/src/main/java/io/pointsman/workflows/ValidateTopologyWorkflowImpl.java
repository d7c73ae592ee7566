package io.pointsman.workflows;

import io.pointsman.workflows.activities.ValidateActivities;
import io.pointsman.workflows.api.ValidateRequest;
import io.pointsman.workflows.model.TopologyReport;
import io.temporal.workflow.Workflow;

public class ValidateTopologyWorkflowImpl implements ValidateTopologyWorkflow {

  @Override
  public TopologyReport validate(ValidateRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.VALIDATE_TOPOLOGY);
    }
    ValidateActivities validator = Workflow.newActivityStub(ValidateActivities.class, StepOptions.step());
    return validator.validateTopology(request.targetKeyspace(), request.workflow());
  }
}
