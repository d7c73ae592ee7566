package io.pointsman.workflows;

import io.pointsman.api.errors.ErrorCode;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import java.util.Arrays;

/** Reading activity failures in workflow code: which are lost locks, which are cancellations. */
final class Failures {
  private Failures() {}

  /** The error code names that no retry can fix; activities fail with these as their type. */
  static String[] nonRetryableTypes() {
    return Arrays.stream(ErrorCode.values()).filter(c -> !c.retryable()).map(Enum::name).toArray(String[]::new);
  }

  /**
   * Those, and a step's own deadline, for the steps that stop writes and wait before the journal: a
   * drain or catch-up that ran out of the request's timeout would hold writes for another whole
   * timeout per retry. Vitess cancels the switch on its --timeout; pointsman rolls it back.
   */
  static String[] nonRetryableWhileWritesStopped() {
    return Arrays.stream(ErrorCode.values()).filter(c -> !c.retryable() || c == ErrorCode.DEADLINE_EXCEEDED)
        .map(Enum::name).toArray(String[]::new);
  }

  static boolean isLockLost(Throwable t) {
    return ErrorCode.LOCK_LOST.name().equals(applicationType(t));
  }

  static boolean isCancellation(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CanceledFailure) {
        return true;
      }
    }
    return false;
  }

  static String applicationType(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ApplicationFailure af) {
        return af.getType();
      }
    }
    return null;
  }

  /** The innermost meaningful message of a failure chain, for progress and results. */
  static String message(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && (c instanceof ActivityFailure || c instanceof TemporalFailure && c.getMessage() == null)) {
      c = c.getCause();
    }
    if (c instanceof ApplicationFailure af) {
      return af.getOriginalMessage();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }
}
