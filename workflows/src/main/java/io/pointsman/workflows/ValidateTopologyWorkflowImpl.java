package io.pointsman.workflows;

import io.pointsman.api.activities.ValidateActivities;
import io.pointsman.api.model.TopologyReport;
import io.pointsman.api.request.ValidateRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ValidateTopologyWorkflow;
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
