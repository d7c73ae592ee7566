package io.pointsman.api.activities;

import io.pointsman.api.model.TopologyReport;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The topology validator, run by a worker (which has etcd and the shard primaries) for the CLI. */
@ActivityInterface
public interface ValidateActivities {
  /** Reads the workflow's records in etcd and on its primaries, changing nothing. */
  @ActivityMethod(name = "validateTopology")
  TopologyReport validateTopology(String targetKeyspace, String workflow);
}
