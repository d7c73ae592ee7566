package io.pointsman.api.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** vtctldclient MoveTables|Reshard SwitchTraffic, as a durable workflow. */
@WorkflowInterface
public interface SwitchTrafficWorkflow extends ProgressQuery, LockWaitReport {
  @WorkflowMethod(name = Pointsman.SWITCH_TRAFFIC)
  ActionResult switchTraffic(SwitchTrafficRequest request);
}
