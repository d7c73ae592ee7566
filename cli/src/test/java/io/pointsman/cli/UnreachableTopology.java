package io.pointsman.cli;

import io.pointsman.api.errors.ErrorCode;
import io.temporal.activity.DynamicActivity;
import io.temporal.common.converter.EncodedValues;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/**
 * Every activity of the test worker, local ones included, as when neither the topology nor a shard
 * primary can be reached: a retryable failure, tried again only after {@link #RETRY_DELAY}. An action
 * started then stays running at its first step, waiting on a timer, and answers queries meanwhile
 * (a step that blocked instead would hold a local read's workflow task open, and queries with it).
 */
final class UnreachableTopology implements DynamicActivity {
  /** Longer than any test of the class runs. */
  static final Duration RETRY_DELAY = Duration.ofMinutes(10);

  @Override
  public Object execute(EncodedValues args) {
    throw ApplicationFailure.newBuilder()
        .setMessage("this test's worker reaches no topology and no shard primary")
        .setType(ErrorCode.UNAVAILABLE.name())
        .setNextRetryDelay(RETRY_DELAY)
        .build();
  }
}
