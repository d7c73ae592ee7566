package io.pointsman.engine.etcd;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.errors.ErrorCode;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;

/**
 * The one place that says what an etcd failure means when security is involved. jetcd reports a
 * rejected client certificate as {@code UNAVAILABLE: ssl exception} and a wrong password as a bare
 * {@code UNAUTHENTICATED}, the real reason buried in the cause chain; operators get a message
 * naming the setting to check instead. Refused credentials and permissions are
 * FAILED_PRECONDITION (retrying cannot help until the settings or the role change); a failed TLS
 * handshake stays UNAVAILABLE, since it is also what a certificate rotation in progress looks like.
 */
public final class EtcdErrors {
  private EtcdErrors() {}

  /** What went wrong, naming the setting to check when it is a TLS or auth refusal. */
  public static String describe(Throwable failure) {
    Throwable cause = unwrap(failure);
    String security = securityProblem(cause);
    if (security != null) {
      return security;
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /**
   * FAILED_PRECONDITION for refused credentials or permissions; otherwise {@code fallback}, the
   * caller's code for an etcd that did not answer as hoped (UNAVAILABLE, or UNKNOWN_OUTCOME for a
   * write).
   */
  public static ErrorCode code(Throwable failure, ErrorCode fallback) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      Status.Code status = statusOf(c);
      if (status == Status.Code.PERMISSION_DENIED || status == Status.Code.UNAUTHENTICATED
          || authFailed(c)) {
        return ErrorCode.FAILED_PRECONDITION;
      }
    }
    return fallback;
  }

  private static String securityProblem(Throwable failure) {
    String tls = null;
    boolean unauthenticated = false;
    for (Throwable c = failure; c != null; c = c.getCause()) {
      String message = c.getMessage() == null ? "" : c.getMessage();
      if (authFailed(c)) {
        return "etcd refused the user name or password (ETCD_USER, ETCD_PASSWORD): " + message;
      }
      Status.Code status = statusOf(c);
      if (status == Status.Code.PERMISSION_DENIED) {
        return "etcd denied access to a key: the etcd user's role needs readwrite on the topology's global root "
            + "and cell roots, lock keys included (" + message + ")";
      }
      if (status == Status.Code.UNAUTHENTICATED) {
        unauthenticated = true;
      }
      if (c instanceof SSLException && tls == null) {
        tls = tlsProblem(message);
      }
    }
    if (tls != null) {
      return tls;
    }
    return unauthenticated ? "etcd did not accept this client's authentication (ETCD_USER, ETCD_PASSWORD, "
        + "or the client certificate's common name): " + unwrap(failure).getMessage() : null;
  }

  private static String tlsProblem(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    if (m.contains("bad_certificate") || m.contains("certificate_required") || m.contains("unknown_ca")
        || m.contains("certificate_unknown")) {
      return "etcd rejected this client's TLS certificate: it requires a client certificate signed by a CA it "
          + "trusts (check ETCD_CERT_FILE and ETCD_KEY_FILE) [" + message + "]";
    }
    if (m.contains("subject alternative name") || m.contains("no name matching") || m.contains("hostname")) {
      return "etcd's server certificate does not name the host in ETCD_ENDPOINTS [" + message + "]";
    }
    if (m.contains("pkix") || m.contains("certification path") || m.contains("unable to find valid")) {
      return "this client does not trust etcd's server certificate (check ETCD_CA_FILE) [" + message + "]";
    }
    return "the TLS handshake with etcd failed (check ETCD_CA_FILE, ETCD_CERT_FILE, ETCD_KEY_FILE and that the "
        + "endpoint is https://) [" + message + "]";
  }

  /** etcd's answer to a wrong user or password: INVALID_ARGUMENT with this text, not UNAUTHENTICATED. */
  private static boolean authFailed(Throwable t) {
    String message = t.getMessage();
    return message != null && message.contains("etcdserver: authentication failed");
  }

  /** The gRPC status of this very exception (not of its causes, as {@link Status#fromThrowable} does). */
  private static Status.Code statusOf(Throwable t) {
    if (t instanceof StatusRuntimeException s) {
      return s.getStatus().getCode();
    }
    return t instanceof StatusException s ? s.getStatus().getCode() : null;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }
}
