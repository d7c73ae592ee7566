package io.pointsman.engine.tablet;

import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How pointsman's gRPC channels to vttablets are secured: the client side of vttablet's
 * {@code --grpc-cert/--grpc-key/--grpc-ca}, the same four settings Vitess's own tablet clients take
 * ({@code --tablet-manager-grpc-ca/-cert/-key/-server-name}). TLS is on when any is set, as in
 * Vitess; {@link #PLAINTEXT} (none set) is the default.
 *
 * @param caFile PEM CA that signed the tablets' server certificates; empty: the JDK's trust store
 * @param certFile PEM client certificate, for tablets started with {@code --grpc-ca} (which then
 *     require one); set together with {@code keyFile}
 * @param keyFile its private key, PEM (PKCS#8)
 * @param serverName the name the tablets' certificates are checked against instead of the host the
 *     tablet record names
 */
public record TabletTls(Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile, Optional<String> serverName) {
  /** The environment variables the worker reads these from; error messages name them. */
  public static final String CA_FILE = "VTTABLET_GRPC_CA_FILE";
  public static final String CERT_FILE = "VTTABLET_GRPC_CERT_FILE";
  public static final String KEY_FILE = "VTTABLET_GRPC_KEY_FILE";
  public static final String SERVER_NAME = "VTTABLET_GRPC_SERVER_NAME";

  public static final TabletTls PLAINTEXT = new TabletTls(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

  public TabletTls {
    Objects.requireNonNull(caFile, "caFile");
    Objects.requireNonNull(certFile, "certFile");
    Objects.requireNonNull(keyFile, "keyFile");
    Objects.requireNonNull(serverName, "serverName");
    if (certFile.isPresent() != keyFile.isPresent()) {
      throw PointsmanException.invalidArgument("a client certificate for vttablet gRPC needs both " + CERT_FILE
          + " and " + KEY_FILE + "; only " + (certFile.isPresent() ? CERT_FILE : KEY_FILE) + " is set");
    }
    if (serverName.isPresent() && serverName.get().isBlank()) {
      throw PointsmanException.invalidArgument(SERVER_NAME + " is blank");
    }
  }

  /** TLS verified with {@code caFile}, no client certificate. */
  public static TabletTls verifiedBy(Path caFile) {
    return new TabletTls(Optional.of(caFile), Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** The same, presenting {@code cert} (with {@code key}) to tablets that require a client certificate. */
  public TabletTls withClientCertificate(Path cert, Path key) {
    return new TabletTls(caFile, Optional.of(cert), Optional.of(key), serverName);
  }

  /** The same, checking the tablets' certificates against {@code name} instead of their host. */
  public TabletTls withServerName(String name) {
    return new TabletTls(caFile, certFile, keyFile, Optional.of(name));
  }

  public boolean enabled() {
    return caFile.isPresent() || certFile.isPresent() || serverName.isPresent();
  }

  /** One line for logs and check-config: which settings are in force (paths only, nothing secret). */
  public String describe() {
    if (!enabled()) {
      return "plaintext";
    }
    StringBuilder b = new StringBuilder("TLS, server certificate checked against ")
        .append(caFile.map(p -> "CA " + p).orElse("the JDK trust store"));
    serverName.ifPresent(n -> b.append(" for name ").append(n));
    b.append(certFile.map(p -> ", client certificate " + p).orElse(", no client certificate"));
    return b.toString();
  }
}
