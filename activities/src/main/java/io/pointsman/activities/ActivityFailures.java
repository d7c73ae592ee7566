package io.pointsman.activities;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.function.Supplier;

/**
 * The one place that decides how a failure leaves an activity: a {@link PointsmanException}
 * becomes an ApplicationFailure whose type is its error code and which is retryable exactly when
 * the code is; a connection-level SQL error is UNAVAILABLE (retryable); anything else is INTERNAL
 * and not retried, since retrying a bug repeats it.
 */
public final class ActivityFailures {
  private ActivityFailures() {}

  /** Runs an activity body and translates what it throws. */
  public static <T> T translate(Supplier<T> body) {
    return translateExpecting(null, body);
  }

  public static void translate(Runnable body) {
    translate(() -> {
      body.run();
      return null;
    });
  }

  /**
   * As {@link #translate(Supplier)}, but a failure whose code is {@code expected} leaves as BENIGN:
   * an outcome its caller plans for (the local try of the locks finding one held), which the SDK
   * logs at debug level instead of a warning with a stack trace, and leaves out of its failure
   * metrics. Type, retryability and message are as for any other failure.
   */
  public static <T> T translateExpecting(ErrorCode expected, Supplier<T> body) {
    try {
      return body.get();
    } catch (TemporalFailure | io.temporal.client.ActivityCompletionException e) {
      throw e; // cancellation and friends already speak Temporal
    } catch (RuntimeException e) {
      throw toFailure(e, expected);
    }
  }

  /** {@code expected}: the code that leaves as BENIGN, or null for none. */
  private static ApplicationFailure toFailure(Throwable e, ErrorCode expected) {
    ErrorCode code = classify(e);
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return ApplicationFailure.newBuilder()
        .setMessage(message)
        .setType(code.name())
        .setNonRetryable(!code.retryable())
        .setCause(e)
        .setCategory(code == expected ? ApplicationErrorCategory.BENIGN : ApplicationErrorCategory.UNSPECIFIED)
        .build();
  }

  /** Walks the cause chain: the first pointsman code wins; SQL connection trouble is UNAVAILABLE. */
  static ErrorCode classify(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof PointsmanException pe) {
        return pe.code();
      }
      if (c instanceof SQLTransientException) {
        return ErrorCode.UNAVAILABLE;
      }
      if (c instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
        return ErrorCode.UNAVAILABLE; // SQLSTATE class 08: connection exception
      }
    }
    return ErrorCode.INTERNAL;
  }
}
