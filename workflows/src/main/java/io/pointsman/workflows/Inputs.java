package io.pointsman.workflows;

import io.pointsman.api.errors.ErrorCode;
import io.temporal.failure.ApplicationFailure;

/** Small shared pieces of the workflow entry points. */
final class Inputs {
  private Inputs() {}

  /** A start without any input (an empty Input box in the Temporal UI). */
  static ApplicationFailure missing(String action) {
    return ApplicationFailure.newNonRetryableFailure(action + " input is missing: expected one JSON object such as "
        + "{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\"}", ErrorCode.INVALID_ARGUMENT.name());
  }
}
