package io.pointsman.api.activities;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** Asking the external failover tools (VTOrc) about the shards of a write window before it opens. */
@ActivityInterface
public interface FailoverToolActivities {
  /**
   * Asks every VTOrc the worker is configured with ({@code VTORC_ADDRESSES}) whether it sees a
   * problem, and so runs or is about to run a recovery, on any of the shards. Read-only.
   *
   * @param shards {@code <keyspace>/<shard>} names
   * @return why the window must not open (naming the VTOrc, the shard and the problem), or empty
   */
  @ActivityMethod(name = "checkFailoverTools")
  String checkFailoverTools(List<String> shards);
}
