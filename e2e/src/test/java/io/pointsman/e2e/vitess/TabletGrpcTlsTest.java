package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.tablet.TabletEndpoint;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.tablet.TabletTls;
import io.pointsman.engine.tablet.VReplicationWorkflow;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.sandbox.cluster.Folders;
import io.pointsman.sandbox.stack.OpenedParts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pointsman's tablet-manager client against real Vitess 24 vttablets that serve gRPC over TLS and
 * require client certificates ({@code --grpc-cert --grpc-key --grpc-ca}), in a cluster whose vtctld,
 * vtgate and vttablets reach the tablets with Vitess's client flags ({@code --tablet-manager-grpc-*},
 * {@code --tablet-grpc-*}): with the tablets' CA and a client certificate it reads the workflow;
 * each wrong setting fails the first RPC at once, naming the cause and the setting.
 */
class TabletGrpcTlsTest {
  private static final Logger log = LoggerFactory.getLogger(TabletGrpcTlsTest.class);
  private static final String WORKFLOW = "commerce2customer";
  /** Far above what a refused handshake takes, far below the RPC deadline: "at once", not "timed out". */
  private static final Duration AT_ONCE = Duration.ofSeconds(10);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  /** The cluster runs on certificates made first in a folder of the class's own, deleted after the cluster stops. */
  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.on(TabletGrpcTlsTest::tlsCluster).withoutWorker();

  private static TestCertificates.Issued client;
  private static TestCertificates.Issued strangerClient;
  private static Path ca;
  private static Path otherCa;
  private static VitessCluster cluster;
  private static TabletEndpoint commerce;
  private static TabletEndpoint target;

  @BeforeAll
  static void tablets() {
    cluster = VITESS.cluster();
    commerce = cluster.tablet(100).endpoint();
    target = cluster.tablet(200).endpoint();
  }

  private static VitessCluster tlsCluster(OpenedParts first) throws Exception {
    Path dir = Files.createTempDirectory("tablet-grpc-tls");
    first.add("the certificates' folder", () -> Folders.deleteTree(dir));
    TestCertificates tablets = TestCertificates.newAuthority(dir.resolve("certs"), "tablets");
    TestCertificates.Issued server = tablets.issue("vttablet", "IP:127.0.0.1", "DNS:localhost");
    client = tablets.issue("pointsman");
    TestCertificates other = TestCertificates.newAuthority(dir.resolve("certs"), "other");
    strangerClient = other.issue("stranger");
    ca = tablets.caCert();
    otherCa = other.caCert();
    // the layout vitess-cluster.sh reads; vtctld, vtgate and the tablets use pointsman's client certificate too
    Path tls = Files.createDirectories(dir.resolve("cluster-tls"));
    Files.copy(ca, tls.resolve("ca.pem"));
    Files.copy(server.cert(), tls.resolve("server.pem"));
    Files.copy(server.key(), tls.resolve("server-key.pem"));
    Files.copy(client.cert(), tls.resolve("client.pem"));
    Files.copy(client.key(), tls.resolve("client-key.pem"));
    return MoveTablesCluster.start(WORKFLOW, Map.of("POINTSMAN_VITESS_GRPC_TLS_DIR", tls.toString()));
  }

  @Test
  void withTheTabletsCaAndAClientCertificateReadsTheWorkflowAndThePosition() {
    try (TabletManagerClient c = client(TabletTls.verifiedBy(ca).withClientCertificate(client.cert(), client.key()))) {
      VReplicationWorkflow wf = c.readVReplicationWorkflow(target, WORKFLOW).orElseThrow();
      assertThat(wf.dbName()).isEqualTo("vt_customer");
      assertThat(wf.streams()).singleElement().satisfies(s -> assertThat(s.state()).isEqualTo(StreamState.RUNNING));
      assertThat(c.primaryPosition(commerce)).startsWith("MariaDB/");
    }
  }

  @Test
  void aServerNameTheCertificateCarriesIsAccepted() {
    TabletTls tls = TabletTls.verifiedBy(ca).withClientCertificate(client.cert(), client.key()).withServerName("localhost");
    try (TabletManagerClient c = client(tls)) {
      assertThat(c.primaryPosition(commerce)).startsWith("MariaDB/");
    }
  }

  @Test
  void vtctldReachesTheTlsTabletsWithTheClientFlags() {
    // MoveTables show is vtctld asking each target primary (tablet-manager RPCs over TLS); Running
    // streams mean the targets' VReplication reads the source tablet (query service over TLS)
    assertThat(cluster.moveTablesStreams("customer", WORKFLOW)).hasSize(2)
        .allSatisfy(s -> assertThat(s.path("state").asText()).isEqualTo("Running"));
    assertThat(cluster.vtctldclient("GetTablets", "--keyspace", "customer")).contains("zone1-0000000200");
  }

  @Test
  void withoutAClientCertificateTheTabletRefusesAndTheMessageSaysWhichSettingsToSet() {
    assertFailsAtOnce(TabletTls.verifiedBy(ca),
        "requires a client certificate", TabletTls.CERT_FILE, TabletTls.KEY_FILE);
  }

  @Test
  void aClientCertificateOfAnotherCaIsRefused() {
    assertFailsAtOnce(TabletTls.verifiedBy(ca).withClientCertificate(strangerClient.cert(), strangerClient.key()),
        "refused this client's certificate", TabletTls.CERT_FILE);
  }

  @Test
  void aServerCertificateNotSignedByTheConfiguredCaIsNotTrusted() {
    assertFailsAtOnce(TabletTls.verifiedBy(otherCa).withClientCertificate(client.cert(), client.key()),
        "does not trust the tablet's server certificate", TabletTls.CA_FILE);
  }

  @Test
  void aServerNameTheCertificateDoesNotCarryIsRefused() {
    assertFailsAtOnce(TabletTls.verifiedBy(ca).withClientCertificate(client.cert(), client.key()).withServerName("db-9.example"),
        "does not name db-9.example", TabletTls.SERVER_NAME);
  }

  @Test
  void aPlaintextClientGetsNoAnswerFromATlsTablet() {
    assertFailsAtOnce(TabletTls.PLAINTEXT, "if the tablet serves TLS", TabletTls.CA_FILE, TabletTls.CERT_FILE);
  }

  private static TabletManagerClient client(TabletTls tls) {
    return new TabletManagerClient(new TabletRpcOptions(CALL_TIMEOUT, Duration.ofSeconds(5), tls));
  }

  private static void assertFailsAtOnce(TabletTls tls, String cause, String... settings) {
    try (TabletManagerClient c = client(tls)) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> c.readVReplicationWorkflow(target, WORKFLOW))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            log.info("{}: {}", tls.describe(), e.getMessage());
            assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(e.getMessage()).contains("ReadVReplicationWorkflow", target.alias().toString(), cause).contains(settings);
          });
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(AT_ONCE);
    }
  }
}
