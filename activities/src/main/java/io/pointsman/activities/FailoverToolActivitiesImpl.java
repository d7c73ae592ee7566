package io.pointsman.activities;

import io.pointsman.api.activities.FailoverToolActivities;
import io.pointsman.engine.vtorc.FailoverToolCheck;
import java.util.List;
import java.util.Objects;

/** {@link FailoverToolActivities} over a {@link FailoverToolCheck}. */
public final class FailoverToolActivitiesImpl implements FailoverToolActivities {
  private final FailoverToolCheck check;

  public FailoverToolActivitiesImpl(FailoverToolCheck check) {
    this.check = Objects.requireNonNull(check, "check");
  }

  @Override
  public String checkFailoverTools(List<String> shards) {
    return ActivityFailures.translate(() -> check.refusal(shards));
  }
}
