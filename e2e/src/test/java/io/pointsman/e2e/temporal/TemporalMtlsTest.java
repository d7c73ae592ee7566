package io.pointsman.e2e.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cli.PointsmanCli;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.worker.PointsmanWorker;
import io.pointsman.worker.WorkerConfig;
import io.pointsman.worker.check.CheckConfigMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker and the CLI against a real Temporal server (1.29.1, the version the CLI's dev server
 * embeds) whose frontend requires mutual TLS: with a client certificate of the server's client CA
 * the worker polls and runs an action the CLI started; a certificate of another CA, or none, is
 * refused with a message naming the certificate settings, for the CLI and for check-config (the
 * worker's settings).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TemporalMtlsTest {
  private static Path dir;
  private static TestCertificates ca;
  private static TestCertificates.Issued client;
  private static TestCertificates.Issued foreign;
  private static TlsTemporalServer server;

  @BeforeAll
  static void up() throws Exception {
    dir = Files.createTempDirectory("pointsman-temporal-mtls");
    ca = TestCertificates.newAuthority(dir.resolve("certs"), "temporal");
    TestCertificates other = TestCertificates.newAuthority(dir.resolve("certs"), "other");
    client = ca.issue("pointsman-worker");
    foreign = other.issue("pointsman-worker");
    server = TlsTemporalServer.start(dir.resolve("server"), ca, ca.issue("temporal", "IP:127.0.0.1", "DNS:localhost"),
        ca.issue("temporal-system-worker"));
  }

  @AfterAll
  static void down() throws Exception {
    if (server != null) {
      server.close();
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theWorkerPollsOverMutualTlsAndRunsWhatTheCliStarts() throws Exception {
    String queue = "mtls-" + UUID.randomUUID();
    Map<String, String> env = workerEnv(client);
    env.put("POINTSMAN_TASK_QUEUE", queue);
    try (PointsmanWorker worker = PointsmanWorker.start(WorkerConfig.fromEnv(env))) {
      // a workflow that does not exist: the worker's first activity reads etcd and refuses it, so the
      // CLI's failure proves the worker polled and answered over mTLS
      Run r = cli(client, "--task-queue", queue, "MoveTables", "--workflow", "nosuch", "--target-keyspace",
          "nosuch", "SwitchTraffic");
      assertThat(r.exit()).as(r.out()).isEqualTo(1);
      assertThat(r.out()).contains("nosuch").doesNotContain("cannot reach Temporal");
    }
  }

  @Test
  void theCliAndCheckConfigSayWhichCertificateTheServerRefused() {
    for (TestCertificates.Issued wrong : new TestCertificates.Issued[] {foreign, null}) {
      String which = wrong == null ? "no client certificate" : "a certificate of another CA";
      Run r = cli(wrong, "MoveTables", "--workflow", "w", "--target-keyspace", "k", "Status");
      assertThat(r.exit()).as(which + ": " + r.out()).isEqualTo(1);
      assertThat(r.out()).as(which).contains("Temporal refused this client's TLS certificate",
          "TEMPORAL_TLS_CERT", "--tls-cert");

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int exit = CheckConfigMain.run(new String[0], workerEnv(wrong), new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(out, true, StandardCharsets.UTF_8));
      String report = out.toString(StandardCharsets.UTF_8);
      assertThat(exit).as(report).isEqualTo(1);
      assertThat(report).as(which).contains("temporal " + server.address(),
          "MISSING connect: TLS", "Temporal refused this client's TLS certificate");
    }
    // the right certificate: check-config's Temporal part works
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CheckConfigMain.run(new String[0], workerEnv(client), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("ok      connect: TLS with client certificate",
        "ok      namespace default: described");
  }

  private static Map<String, String> workerEnv(TestCertificates.Issued cert) {
    TopoPaths paths = TestEtcd.freshPaths();
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", server.address());
    env.put("TEMPORAL_TLS_CA", ca.caCert().toString());
    env.put("TEMPORAL_TLS_SERVER_NAME", "localhost");
    if (cert != null) {
      env.put("TEMPORAL_TLS_CERT", cert.cert().toString());
      env.put("TEMPORAL_TLS_KEY", cert.key().toString());
    }
    env.put("ETCD_ENDPOINTS", TestServices.etcdEndpoint());
    env.put("TOPO_GLOBAL_ROOT", paths.globalRoot());
    env.put("TOPO_CELL_ROOT_PREFIX", paths.cellRootPrefix());
    env.put("MYSQL_USER", TestServices.mysqlUser());
    env.put("MYSQL_PASSWORD", TestServices.mysqlPassword());
    env.put("MYSQL_TLS_MODE", "DISABLED");
    env.put("METRICS_PORT", "0");
    env.put("WORKER_SHUTDOWN_GRACE", "5s");
    return env;
  }

  record Run(int exit, String out) {}

  private static Run cli(TestCertificates.Issued cert, String... args) {
    List<String> line = new ArrayList<>(List.of("--temporal-address", server.address(), "--tls-ca",
        ca.caCert().toString(), "--tls-server-name", "localhost"));
    if (cert != null) {
      line.addAll(List.of("--tls-cert", cert.cert().toString(), "--tls-key", cert.key().toString()));
    }
    line.addAll(List.of(args));
    StringWriter out = new StringWriter();
    int exit = PointsmanCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
        .execute(line.toArray(String[]::new));
    return new Run(exit, out.toString());
  }
}
