package io.pointsman.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;

public class ReverseTrafficWorkflowImpl extends ActionWorkflow implements ReverseTrafficWorkflow {
  public ReverseTrafficWorkflowImpl() {
    super(Pointsman.REVERSE_TRAFFIC);
  }

  @Override
  public ActionResult reverseTraffic(SwitchTrafficRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.REVERSE_TRAFFIC);
    }
    progress = new ProgressTracker(Pointsman.REVERSE_TRAFFIC, request.targetKeyspace(), request.workflow());
    return new TrafficSwitch(Pointsman.REVERSE_TRAFFIC, request, Direction.BACKWARD, progress).run();
  }
}
