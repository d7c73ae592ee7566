package io.pointsman.engine.tablet;

import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * What a failed TLS handshake with a vttablet means, in words naming the setting to change. gRPC
 * reports all of them as {@code UNAVAILABLE}, the real reason in an {@link SSLException} down the
 * cause chain (or, for a tablet that wanted a client certificate, in the alert text).
 */
final class TabletTlsErrors {
  private TabletTlsErrors() {}

  /** The TLS problem behind {@code failure}, if it is one. */
  static Optional<String> describe(Throwable failure, TabletEndpoint tablet, TabletTls tls) {
    boolean handshake = false;
    // OpenSSL's engine wraps the reason ("General OpenSslEngine problem" over a CertificateException):
    // the whole chain is read, and the innermost message is the one shown
    StringBuilder chain = new StringBuilder();
    String innermost = "";
    for (Throwable c = failure; c != null; c = c.getCause()) {
      String message = c.getMessage() == null ? "" : c.getMessage();
      handshake |= c instanceof SSLException || isAlert(message);
      if (handshake && !message.isEmpty()) {
        chain.append(message).append('\n');
        innermost = message;
      }
    }
    return handshake ? Optional.of(problem(chain.toString(), innermost, tablet, tls)) : Optional.empty();
  }

  private static boolean isAlert(String message) {
    return message.contains("Received fatal alert");
  }

  private static String problem(String chain, String message, TabletEndpoint tablet, TabletTls tls) {
    String m = chain.toLowerCase(Locale.ROOT);
    if (m.contains("certificate_required") || m.contains("bad_certificate") || m.contains("unknown_ca")
        || m.contains("certificate_unknown")) {
      return (tls.certFile().isEmpty()
          ? "the tablet requires a client certificate (vttablet --grpc-ca) and none is configured: set "
          : "the tablet refused this client's certificate: it must be signed by the CA of vttablet's --grpc-ca (check ")
          + TabletTls.CERT_FILE + " and " + TabletTls.KEY_FILE + (tls.certFile().isEmpty() ? "" : ")") + " [" + message + "]";
    }
    if (m.contains("subject alternative") || m.contains("name matching") || m.contains("hostname")) {
      String name = tls.serverName().orElse(tablet.host());
      return "the tablet's server certificate does not name " + name + " ("
          + (tls.serverName().isPresent() ? "check " + TabletTls.SERVER_NAME : "its host; set " + TabletTls.SERVER_NAME
          + " to a name the certificate carries") + ") [" + message + "]";
    }
    if (m.contains("pkix") || m.contains("certification path") || m.contains("unable to find valid")) {
      return "this client does not trust the tablet's server certificate: it is not signed by the CA in "
          + TabletTls.CA_FILE + (tls.caFile().isEmpty() ? " (not set: the JDK trust store was used)" : "") + " [" + message + "]";
    }
    if (m.contains("not an ssl/tls record")) {
      return "the tablet does not speak TLS on its gRPC port (unset " + TabletTls.CA_FILE + ", " + TabletTls.CERT_FILE
          + ", " + TabletTls.SERVER_NAME + ", or start vttablet with --grpc-cert and --grpc-key) [" + message + "]";
    }
    return "the TLS handshake with the tablet failed (check " + TabletTls.CA_FILE + ", " + TabletTls.CERT_FILE + ", "
        + TabletTls.KEY_FILE + " and " + TabletTls.SERVER_NAME + ") [" + message + "]";
  }
}
