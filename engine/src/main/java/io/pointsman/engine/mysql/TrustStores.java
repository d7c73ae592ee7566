package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

/**
 * Turns a PEM CA file (what operators and Kubernetes secrets hold) into the PKCS12 trust store
 * Connector/J reads. The store holds only public certificates, so its fixed password guards
 * nothing secret; it exists because the format requires one.
 */
final class TrustStores {
  static final String PASSWORD = "pointsman-ca";

  private TrustStores() {}

  static Path fromPem(Path pemFile) {
    try (InputStream in = Files.newInputStream(pemFile)) {
      Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw PointsmanException.failedPrecondition("TLS CA file " + pemFile + " holds no certificate");
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (Certificate c : certs) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      Path file = Files.createTempFile("pointsman-mysql-ca", ".p12");
      file.toFile().deleteOnExit();
      try (OutputStream out = Files.newOutputStream(file)) {
        store.store(out, PASSWORD.toCharArray());
      }
      return file;
    } catch (IOException | GeneralSecurityException e) {
      throw PointsmanException.failedPrecondition("cannot read TLS CA file " + pemFile + ": " + e.getMessage());
    }
  }
}
