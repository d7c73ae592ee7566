package io.pointsman.api.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * vtctldclient MoveTables|Reshard ReverseTraffic: reads go back to the source; writes go back by a
 * forward switch of the {@code <workflow>_reverse} streams, as Vitess does it.
 */
@WorkflowInterface
public interface ReverseTrafficWorkflow extends ProgressQuery, LockWaitReport {
  @WorkflowMethod(name = Pointsman.REVERSE_TRAFFIC)
  ActionResult reverseTraffic(SwitchTrafficRequest request);
}
