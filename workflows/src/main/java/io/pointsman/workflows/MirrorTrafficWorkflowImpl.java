package io.pointsman.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.Pointsman;

public class MirrorTrafficWorkflowImpl extends ActionWorkflow implements MirrorTrafficWorkflow {
  public MirrorTrafficWorkflowImpl() {
    super(Pointsman.MIRROR_TRAFFIC);
  }

  @Override
  public ActionResult mirrorTraffic(MirrorTrafficRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.MIRROR_TRAFFIC);
    }
    progress = new ProgressTracker(Pointsman.MIRROR_TRAFFIC, request.targetKeyspace(), request.workflow());
    return new TrafficMirror(request, progress).run();
  }
}
