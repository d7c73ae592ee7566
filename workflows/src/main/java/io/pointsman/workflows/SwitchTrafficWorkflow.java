package io.pointsman.workflows;

import io.pointsman.workflows.api.SwitchTrafficRequest;
import io.pointsman.workflows.model.ActionResult;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** vtctldclient MoveTables|Reshard SwitchTraffic, as a durable workflow. */
@WorkflowInterface
public interface SwitchTrafficWorkflow extends ProgressQuery {
  @WorkflowMethod(name = Pointsman.SWITCH_TRAFFIC)
  ActionResult switchTraffic(SwitchTrafficRequest request);
}
