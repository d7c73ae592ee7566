package io.pointsman.engine.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wrong TLS files for vttablet gRPC fail when the tablet client is made, naming the setting; right
 * ones make a client. (The handshakes themselves are tested against real vttablets: TabletGrpcTlsTest.)
 */
class TabletTlsSettingsTest {
  @TempDir
  static Path dir;
  private static TestCertificates ca;
  private static TestCertificates.Issued client;

  @BeforeAll
  static void certificates() throws Exception {
    ca = TestCertificates.newAuthority(dir, "tablets");
    client = ca.issue("pointsman");
  }

  @Test
  void validFilesMakeATlsClient() {
    TabletTls tls = TabletTls.verifiedBy(ca.caCert()).withClientCertificate(client.cert(), client.key());
    assertThat(tls.enabled()).isTrue();
    assertThat(tls.describe()).contains("CA " + ca.caCert(), "client certificate " + client.cert());
    new TabletManagerClient(TabletRpcOptions.DEFAULTS.withTls(tls)).close();
  }

  @Test
  void plaintextIsTheDefault() {
    assertThat(TabletRpcOptions.DEFAULTS.tls()).isEqualTo(TabletTls.PLAINTEXT);
    assertThat(TabletTls.PLAINTEXT.enabled()).isFalse();
    assertThat(TabletTls.PLAINTEXT.describe()).isEqualTo("plaintext");
  }

  @Test
  void aMissingCaFileIsNamed() {
    Path missing = dir.resolve("no-such-ca.pem");
    assertRejected(TabletTls.verifiedBy(missing), TabletTls.CA_FILE, missing.toString(), "not a readable file");
  }

  @Test
  void aMissingKeyFileIsNamed() {
    Path missing = dir.resolve("no-such.key");
    assertRejected(TabletTls.verifiedBy(ca.caCert()).withClientCertificate(client.cert(), missing),
        TabletTls.KEY_FILE, missing.toString());
  }

  @Test
  void aCaFileThatHoldsNoCertificateIsNamed() throws Exception {
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
    assertRejected(TabletTls.verifiedBy(garbage), TabletTls.CA_FILE, garbage.toString(), "no PEM certificate");
  }

  @Test
  void aKeyThatIsNotAKeyIsNamed() {
    // the certificate given as its own key
    assertRejected(TabletTls.verifiedBy(ca.caCert()).withClientCertificate(client.cert(), client.cert()),
        TabletTls.CERT_FILE, TabletTls.KEY_FILE, "PKCS#8");
  }

  @Test
  void aCertificateWithoutItsKeyIsRefused() {
    assertThatThrownBy(() -> new TabletTls(Optional.of(ca.caCert()), Optional.of(client.cert()), Optional.empty(), Optional.empty()))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("only " + TabletTls.CERT_FILE + " is set");
  }

  private static void assertRejected(TabletTls tls, String... inMessage) {
    assertThatThrownBy(() -> new TabletManagerClient(TabletRpcOptions.DEFAULTS.withTls(tls)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining(inMessage[0])
        .satisfies(e -> assertThat(e.getMessage()).contains(inMessage));
  }
}
