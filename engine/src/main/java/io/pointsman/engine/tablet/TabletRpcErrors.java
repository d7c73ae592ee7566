package io.pointsman.engine.tablet;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;

/**
 * The one place that decides what a failed tablet RPC means for the caller. vttablet turns its
 * errors (including MySQL's, by error number) into gRPC status codes, so the code is enough to
 * tell "try again" from "something must change first".
 *
 * <p>A mutating RPC that timed out or was cancelled may still have been applied by the tablet:
 * that is {@link ErrorCode#UNKNOWN_OUTCOME} (retryable after re-reading), not a plain timeout.
 */
public final class TabletRpcErrors {
  private TabletRpcErrors() {}

  /** The failure as a {@link PointsmanException} whose message names the RPC and the tablet. */
  public static PointsmanException translate(String rpc, TabletEndpoint tablet, boolean mutating, StatusRuntimeException e) {
    Status status = e.getStatus();
    ErrorCode code = code(status.getCode(), mutating);
    String description = status.getDescription() == null ? "" : ": " + status.getDescription();
    if (status.getDescription() == null && status.getCause() != null) {
      description = ": " + status.getCause();
    }
    return new PointsmanException(code,
        rpc + " on tablet " + tablet.alias() + " at " + tablet.address() + " failed with " + status.getCode() + description, e);
  }

  static ErrorCode code(Status.Code grpc, boolean mutating) {
    switch (grpc) {
      case UNAVAILABLE:
      case RESOURCE_EXHAUSTED:
      case ABORTED:
        return ErrorCode.UNAVAILABLE;
      case DEADLINE_EXCEEDED:
      case CANCELLED:
        return mutating ? ErrorCode.UNKNOWN_OUTCOME : ErrorCode.DEADLINE_EXCEEDED;
      case INVALID_ARGUMENT:
      case OUT_OF_RANGE:
        return ErrorCode.INVALID_ARGUMENT;
      case FAILED_PRECONDITION:
      // the worker's grants or credentials must change first
      case PERMISSION_DENIED:
      case UNAUTHENTICATED:
        return ErrorCode.FAILED_PRECONDITION;
      case NOT_FOUND:
        return ErrorCode.NOT_FOUND;
      case ALREADY_EXISTS:
        return ErrorCode.ALREADY_EXISTS;
      default:
        // UNKNOWN (a plain Go error in vttablet), INTERNAL, UNIMPLEMENTED, DATA_LOSS: not fixed by retrying
        return ErrorCode.INTERNAL;
    }
  }
}
