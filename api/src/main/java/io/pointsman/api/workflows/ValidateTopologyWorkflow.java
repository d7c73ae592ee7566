package io.pointsman.api.workflows;

import io.pointsman.api.model.TopologyReport;
import io.pointsman.api.request.ValidateRequest;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * {@code pointsman Validate}: checks a workflow's routing rules, denied tables, write barriers,
 * serving shards, streams, journal and locks against its defined states, changing nothing. A
 * workflow because the CLI talks to Temporal only; the check runs on a worker.
 */
@WorkflowInterface
public interface ValidateTopologyWorkflow {
  @WorkflowMethod(name = Pointsman.VALIDATE_TOPOLOGY)
  TopologyReport validate(ValidateRequest request);
}
