package io.pointsman.api.errors;

import java.util.Objects;

/** The one unchecked root of pointsman's errors; the code says what kind of failure it is. */
public class PointsmanException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  public PointsmanException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public PointsmanException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  public ErrorCode code() {
    return code;
  }

  public boolean retryable() {
    return code.retryable();
  }

  public static PointsmanException invalidArgument(String message) {
    return new PointsmanException(ErrorCode.INVALID_ARGUMENT, message);
  }

  public static PointsmanException notFound(String message) {
    return new PointsmanException(ErrorCode.NOT_FOUND, message);
  }

  public static PointsmanException alreadyExists(String message) {
    return new PointsmanException(ErrorCode.ALREADY_EXISTS, message);
  }

  public static PointsmanException failedPrecondition(String message) {
    return new PointsmanException(ErrorCode.FAILED_PRECONDITION, message);
  }

  public static PointsmanException unavailable(String message, Throwable cause) {
    return new PointsmanException(ErrorCode.UNAVAILABLE, message, cause);
  }

  public static PointsmanException internal(String message, Throwable cause) {
    return new PointsmanException(ErrorCode.INTERNAL, message, cause);
  }

  @Override
  public String toString() {
    return code + ": " + getMessage();
  }
}
