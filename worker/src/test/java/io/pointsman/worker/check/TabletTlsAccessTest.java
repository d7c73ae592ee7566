package io.pointsman.worker.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.tablet.TabletTls;
import io.pointsman.engine.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** check-config's vttablet gRPC line: only with TLS configured, its files read as the tablet client reads them. */
class TabletTlsAccessTest {
  @TempDir
  Path dir;

  @Test
  void plaintextAddsNoReport() {
    assertThat(TabletTlsAccess.check(TabletRpcOptions.DEFAULTS)).isEmpty();
  }

  @Test
  void readableFilesAreReportedWithWhatIsInForce() throws Exception {
    TestCertificates ca = TestCertificates.newAuthority(dir, "tablets");
    TestCertificates.Issued client = ca.issue("pointsman");
    TabletTls tls = TabletTls.verifiedBy(ca.caCert()).withClientCertificate(client.cert(), client.key()).withServerName("vttablet.internal");

    assertThat(TabletTlsAccess.check(TabletRpcOptions.DEFAULTS.withTls(tls))).singleElement().satisfies(r -> {
      assertThat(r.service()).isEqualTo("vttablet gRPC");
      assertThat(r.findings()).singleElement().satisfies(f -> {
        assertThat(f.ok()).isTrue();
        assertThat(f.detail()).contains("CA " + ca.caCert(), "for name vttablet.internal", "client certificate " + client.cert());
      });
    });
  }

  @Test
  void aCaFileThatHoldsNoCertificateIsMissingNamingTheVariable() throws Exception {
    Path garbage = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");

    assertThat(TabletTlsAccess.check(TabletRpcOptions.DEFAULTS.withTls(TabletTls.verifiedBy(garbage))))
        .singleElement().satisfies(r -> assertThat(r.findings()).singleElement().satisfies(f -> {
          assertThat(f.ok()).isFalse();
          assertThat(f.detail()).contains("VTTABLET_GRPC_CA_FILE " + garbage, "no PEM certificate");
        }));
  }
}
