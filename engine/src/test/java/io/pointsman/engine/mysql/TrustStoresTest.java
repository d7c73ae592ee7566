package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TrustStoresTest {

  private static void keytool(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  void aPemCaBecomesATrustStoreConnectorJCanRead(@TempDir Path dir) throws Exception {
    keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=pointsman-test-ca",
        "-validity", "2", "-keystore", "ca.p12", "-storetype", "PKCS12", "-storepass", "changeit");
    keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", "changeit",
        "-file", "ca.pem");

    Path store = TrustStores.fromPem(dir.resolve("ca.pem"));

    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, TrustStores.PASSWORD.toCharArray());
    }
    assertThat(ks.size()).isEqualTo(1);
    X509Certificate ca = (X509Certificate) ks.getCertificate("ca-0");
    assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=pointsman-test-ca");
  }

  @Test
  void aFileWithoutCertificatesIsAFailedPrecondition(@TempDir Path dir) throws Exception {
    Path notPem = dir.resolve("ca.pem");
    Files.writeString(notPem, "not a certificate\n");

    assertThatThrownBy(() -> TrustStores.fromPem(notPem))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining(notPem.toString());
  }
}
