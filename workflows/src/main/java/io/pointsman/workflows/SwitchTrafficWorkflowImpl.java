package io.pointsman.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;

public class SwitchTrafficWorkflowImpl extends ActionWorkflow implements SwitchTrafficWorkflow {
  public SwitchTrafficWorkflowImpl() {
    super(Pointsman.SWITCH_TRAFFIC);
  }

  @Override
  public ActionResult switchTraffic(SwitchTrafficRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.SWITCH_TRAFFIC);
    }
    progress = new ProgressTracker(Pointsman.SWITCH_TRAFFIC, request.targetKeyspace(), request.workflow());
    return new TrafficSwitch(Pointsman.SWITCH_TRAFFIC, request, Direction.FORWARD, progress).run();
  }
}
