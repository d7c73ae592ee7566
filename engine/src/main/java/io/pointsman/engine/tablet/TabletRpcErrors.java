package io.pointsman.engine.tablet;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place that decides what a failed tablet RPC means for the caller. vttablet turns its
 * errors (including MySQL's, by error number) into gRPC status codes, so the code is enough to
 * tell "try again" from "something must change first".
 *
 * <p>A mutating RPC that timed out or was cancelled may still have been applied by the tablet:
 * that is {@link ErrorCode#UNKNOWN_OUTCOME} (retryable after re-reading), not a plain timeout.
 */
public final class TabletRpcErrors {
  private static final Pattern WRAPPED_CODE = Pattern.compile("rpc error: code = ([A-Za-z]+)");
  private static final String CLOSED_AT_CONNECT = "Network closed for unknown reason";
  private static final String GO_DEADLINE = "context deadline exceeded";
  private static final String GO_CANCELED = "context canceled";
  private TabletRpcErrors() {}

  /** The failure as a {@link PointsmanException} whose message names the RPC and the tablet. */
  public static PointsmanException translate(String rpc, TabletEndpoint tablet, boolean mutating, StatusRuntimeException e) {
    return translate(rpc, tablet, mutating, e, TabletTls.PLAINTEXT);
  }

  /**
   * The same, for a client using {@code tls}: a failed TLS handshake is still UNAVAILABLE (a
   * certificate rotation in progress looks the same), its message saying which setting to check.
   */
  public static PointsmanException translate(String rpc, TabletEndpoint tablet, boolean mutating, StatusRuntimeException e,
      TabletTls tls) {
    Status status = e.getStatus();
    java.util.Optional<String> tlsProblem = TabletTlsErrors.describe(e, tablet, tls);
    if (tlsProblem.isPresent()) {
      return new PointsmanException(ErrorCode.UNAVAILABLE,
          rpc + " on tablet " + tablet.alias() + " at " + tablet.address() + " failed: " + tlsProblem.get(), e);
    }
    ErrorCode code = code(effectiveCode(status), mutating);
    String description = status.getDescription() == null ? "" : ": " + status.getDescription();
    if (status.getDescription() == null && status.getCause() != null) {
      description = ": " + status.getCause();
    }
    if (!tls.enabled() && status.getCode() == Status.Code.UNAVAILABLE && description.contains(CLOSED_AT_CONNECT)) {
      // what a vttablet serving TLS (--grpc-cert) does to a plaintext HTTP/2 preface: drop the connection
      description += " (if the tablet serves TLS, vttablet --grpc-cert, set " + TabletTls.CA_FILE + " and, for --grpc-ca, "
          + TabletTls.CERT_FILE + " and " + TabletTls.KEY_FILE + ")";
    }
    return new PointsmanException(code,
        rpc + " on tablet " + tablet.alias() + " at " + tablet.address() + " failed with " + status.getCode() + description, e);
  }

  /**
   * The status code, or for UNKNOWN the code of the error it wraps, or of the Go context error it
   * ends in. vttablet loses the code of some errors on the way out (ExecuteFetchAsDba's {@code UNKNOWN: TabletManager.ExecuteFetchAsDba on
   * zone1-0000000100: rpc error: code = InvalidArgument desc = multi statement queries are not
   * supported}); the innermost {@code rpc error: code = <Name>} in the text is where it started.
   */
  static Status.Code effectiveCode(Status status) {
    String d = status.getDescription();
    if (status.getCode() != Status.Code.UNKNOWN || d == null) {
      return status.getCode();
    }
    Matcher m = WRAPPED_CODE.matcher(d);
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    if (last == null) {
      // Go's context errors, as vttablet words a wait it gave up on itself (VReplicationWaitForPos):
      // the same timeout or cancellation as the client's own, whichever side noticed it first.
      if (d.contains(GO_DEADLINE)) {
        return Status.Code.DEADLINE_EXCEEDED;
      }
      return d.contains(GO_CANCELED) ? Status.Code.CANCELLED : Status.Code.UNKNOWN;
    }
    for (Status.Code c : Status.Code.values()) {
      // Go spells the names in camel case (InvalidArgument, Canceled); Java in upper snake case
      if (c.name().replace("_", "").equalsIgnoreCase(last) || (c == Status.Code.CANCELLED && last.equals("Canceled"))) {
        return c;
      }
    }
    return Status.Code.UNKNOWN;
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
