package io.pointsman.api.workflows;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * vtctldclient MoveTables MirrorTraffic: vtgate also sends a share of the queries to the moved
 * tables to the target keyspace (results discarded), before any traffic is switched.
 */
@WorkflowInterface
public interface MirrorTrafficWorkflow extends ProgressQuery, LockWaitReport {
  @WorkflowMethod(name = Pointsman.MIRROR_TRAFFIC)
  ActionResult mirrorTraffic(MirrorTrafficRequest request);
}
