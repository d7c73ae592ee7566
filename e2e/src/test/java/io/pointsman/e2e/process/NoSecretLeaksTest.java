package io.pointsman.e2e.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.testing.SecureEtcdProcess;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.MysqlCredentials;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.stack.SandboxStack;
import io.pointsman.worker.TemporalDevServer;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A full MoveTables switch (SwitchTraffic, then Complete) run the way an operator runs it, with
 * every secret pointsman takes set: etcd's auth on (TLS, client certificate, the pointsman user's
 * password), the MySQL account's password, and a Temporal API key in the worker's and the CLI's
 * environment (the dev server takes the key's header and ignores it; TEMPORAL_TLS=false lets it
 * travel over the dev server's plaintext port). The worker and the CLI run as processes from their
 * packaged jars. Afterwards none of the secrets may appear in the workflow histories as the Temporal
 * server returns them (searched as raw protobuf, so payload bytes are searched as they are, and as
 * JSON), the worker's log, the CLI's output, the worker's metrics page, or the error text of a
 * refused action, and the report of {@code check-config} with the right and with wrong passwords.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class NoSecretLeaksTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";
  private static final String ETCD_SECRET = "etcdpw" + random();
  private static final String ETCD_ROOT_SECRET = "etcdroot" + random();
  private static final String MYSQL_SECRET = "mysqlpw" + random();
  private static final String API_KEY = "apikey" + random();
  /** Wrong values handed to a worker command: its error must name the setting, not print the value. */
  private static final String WRONG_ETCD_SECRET = "wrongetcd" + random();
  private static final String WRONG_MYSQL_SECRET = "wrongmysql" + random();
  private static final List<String> SECRETS =
      List.of(ETCD_SECRET, ETCD_ROOT_SECRET, MYSQL_SECRET, API_KEY, WRONG_ETCD_SECRET, WRONG_MYSQL_SECRET);

  @AutoClose
  private static SandboxStack stack;
  private static Path dir;
  private static SecureEtcdProcess etcd;
  private static TestCertificates ca;
  private static TestCertificates.Issued workerCert;
  private static Sandbox sandbox;
  private static Services services;
  private static TemporalDevServer temporal;
  private static final TopoPaths paths = new TopoPaths("/secure/global", "/secure/cells");

  @BeforeAll
  static void up() {
    // the operator's etcd comes first, in the stack's folder: the sandbox keeps its topology there
    stack = SandboxStack.in("pointsman-no-secret").sandboxSubfolder("sandbox")
        .before((folder, parts) -> {
          ca = TestCertificates.newAuthority(folder.resolve("certs"), "topo");
          workerCert = ca.issue("pointsman-worker");
          etcd = parts.add("the secured etcd", new SecureEtcdProcess(folder.resolve("etcd"), ca,
              ca.issue("etcd", "IP:127.0.0.1"), ca.issue("admin")).start());
          // the operator's etcd: root, and a pointsman user whose role reaches the topology roots only
          etcd.addPointsmanAccounts(paths, ETCD_ROOT_SECRET, ETCD_SECRET).enableAuth();
          TestCertificates.Issued sandboxCert = ca.issue("sandbox");
          EtcdOptions asRoot = EtcdOptions.builder().endpoints(etcd.endpoint()).caFile(ca.caCert())
              .certFile(sandboxCert.cert()).keyFile(sandboxCert.key()).user("root").password(ETCD_ROOT_SECRET).build();
          return b -> b.etcdEndpoint(asRoot);
        })
        .sandbox(b -> b.basePort(0)
            .topologyRoots(paths.globalRoot(), paths.cellRootPrefix())
            .credentials(new MysqlCredentials("pointsman", MYSQL_SECRET))
            .withoutReshardTargets())
        .start();
    try {
      dir = stack.dir();
      sandbox = stack.sandbox();
      services = stack.services();
      stack.router();
      createMoveTables();
      temporal = stack.open(TemporalDevServer.start(Path.of(TestServices.temporalBinary()), dir.resolve("temporal")));
    } catch (RuntimeException | Error e) {
      stack.closeAfter(e);
      throw e;
    }
  }

  @Test
  void aFullSwitchWithEverySecretSetLeavesNoneInHistoriesLogsMetricsOrErrors() throws Exception {
    int metricsPort = LoopbackPorts.freePort();
    Map<String, String> env = workerEnv(ETCD_SECRET, MYSQL_SECRET);
    env.put("METRICS_PORT", Integer.toString(metricsPort));
    Path workerLog = dir.resolve("worker.log");
    List<String> cliOutput = new ArrayList<>();
    try (WorkerProcess worker = WorkerProcess.start("worker", WorkerProcess.packagedJar(), env, workerLog)) {
      Cli switched = cli("SwitchTraffic");
      assertThat(switched.exit()).as(switched.output()).isZero();
      assertThat(switched.output()).contains("Writes Switched");
      Cli completed = cli("Complete");
      assertThat(completed.exit()).as(completed.output()).isZero();
      Cli status = cli("Status");
      // an action that fails in the workflow: its error travels through history, the worker and the CLI
      Cli refused = cli("SwitchTraffic");
      assertThat(refused.exit()).as(refused.output()).isEqualTo(1);
      cliOutput.addAll(List.of(switched.output(), completed.output(), status.output(), refused.output()));

      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).as("the worker's metrics page").contains("pointsman_");
      // The worker put its watch of eager activities on its connection, and the dev server (eager
      // on) handed it the switch's holdLocks: one for each lock hand-over, two in a write switch.
      assertThat(counter(metrics, "pointsman_eager_activities_received_total"))
          .as("activities handed to the worker eagerly").isGreaterThanOrEqualTo(2);
      assertNoSecretIn("the worker's metrics page", metrics);
      assertThat(worker.isAlive()).isTrue();
    }

    List<WorkflowExecutionHistory> histories = histories();
    assertThat(histories).as("the runs' histories on the Temporal server").hasSizeGreaterThanOrEqualTo(3);
    for (WorkflowExecutionHistory h : histories) {
      String where = "the history of " + h.getWorkflowExecution().getWorkflowId();
      assertNoSecretIn(where, new String(h.getHistory().toByteArray(), StandardCharsets.ISO_8859_1));
      assertNoSecretIn(where + " (JSON)", h.toJson(false));
    }
    String log = Files.readString(workerLog, StandardCharsets.UTF_8);
    assertThat(log).as("the worker's log").contains("pointsman worker starting");
    assertNoSecretIn("the worker's log", log);
    for (String out : cliOutput) {
      assertNoSecretIn("the CLI's output", out);
    }

    // check-config with the right settings, then with a wrong password each: the errors name the
    // setting, never the value
    Cli right = workerCommand(workerEnv(ETCD_SECRET, MYSQL_SECRET), "check-config");
    assertThat(right.exit()).as(right.output()).isZero();
    assertNoSecretIn("check-config's report", right.output());
    Cli wrongEtcd = workerCommand(workerEnv(WRONG_ETCD_SECRET, MYSQL_SECRET), "check-config");
    assertThat(wrongEtcd.exit()).as(wrongEtcd.output()).isEqualTo(1);
    assertThat(wrongEtcd.output()).contains("etcd refused the user name or password (ETCD_USER, ETCD_PASSWORD)");
    assertNoSecretIn("check-config's report with a wrong etcd password", wrongEtcd.output());
    Cli wrongMysql = workerCommand(workerEnv(ETCD_SECRET, WRONG_MYSQL_SECRET), "check-config");
    assertThat(wrongMysql.exit()).as(wrongMysql.output()).isEqualTo(1);
    assertThat(wrongMysql.output()).containsIgnoringCase("access denied");
    assertNoSecretIn("check-config's report with a wrong MySQL password", wrongMysql.output());
  }

  /** The value of a counter without labels on a Prometheus page; fails when the page has none. */
  private static double counter(String page, String name) {
    return page.lines().filter(l -> l.startsWith(name + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(name.length() + 1).trim()))
        .orElseThrow(() -> new AssertionError("no " + name + " on the metrics page:\n" + page));
  }

  @Test
  void theSearchFindsASecretWhereverItSits() {
    // negative control: the same search over text that does hold one
    String leaked = "ok\nconnecting with " + MYSQL_SECRET + " now";
    assertThat(leakedSecrets(leaked)).containsExactly(MYSQL_SECRET);
    assertThat(leakedSecrets(new String(io.temporal.api.common.v1.Payload.newBuilder()
        .setData(com.google.protobuf.ByteString.copyFromUtf8("{\"k\":\"" + API_KEY + "\"}")).build().toByteArray(),
        StandardCharsets.ISO_8859_1))).containsExactly(API_KEY);
    assertThat(leakedSecrets("the password is set (ETCD_PASSWORD)")).isEmpty();
  }

  private static void assertNoSecretIn(String where, String text) {
    assertThat(leakedSecrets(text)).as("secrets found in " + where).isEmpty();
  }

  /** Each secret that {@code text} holds, as it is or base64-encoded. */
  private static List<String> leakedSecrets(String text) {
    List<String> found = new ArrayList<>();
    for (String s : SECRETS) {
      String b64 = java.util.Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
      // base64 of the secret alone, without its padding (it may sit mid-string)
      if (text.contains(s) || text.contains(b64.replace("=", ""))) {
        found.add(s);
      }
    }
    return found;
  }

  private static Map<String, String> workerEnv(String etcdPassword, String mysqlPassword) {
    Map<String, String> env = WorkerProcesses.withSandboxMysql(WorkerProcesses.env(temporal.address(), "pointsman"),
        "pointsman", mysqlPassword);
    env.put("TEMPORAL_API_KEY", API_KEY);
    env.put("TEMPORAL_TLS", "false");
    env.put("ETCD_ENDPOINTS", etcd.endpoint());
    env.put("ETCD_CA_FILE", ca.caCert().toString());
    env.put("ETCD_CERT_FILE", workerCert.cert().toString());
    env.put("ETCD_KEY_FILE", workerCert.key().toString());
    env.put("ETCD_USER", "pointsman");
    env.put("ETCD_PASSWORD", etcdPassword);
    env.put("TOPO_GLOBAL_ROOT", paths.globalRoot());
    env.put("TOPO_CELL_ROOT_PREFIX", paths.cellRootPrefix());
    return env;
  }


  record Cli(int exit, String output) {}

  /** {@code pointsman MoveTables --workflow ... <action>} from the CLI's jar, with the API key in its environment. */
  private static Cli cli(String action) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("TEMPORAL_API_KEY", API_KEY);
    env.put("TEMPORAL_TLS", "false");
    return java(WorkerProcess.packagedJar("cli"), env, "MoveTables", "--workflow", WORKFLOW, "--target-keyspace", TARGET, action);
  }

  private static Cli workerCommand(Map<String, String> env, String... args) throws Exception {
    return java(WorkerProcess.packagedJar(), env, args);
  }

  private static Cli java(Path jar, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(env);
    Path out = Files.createTempFile(dir, "process", ".log");
    Process p = pb.redirectOutput(out.toFile()).start();
    if (!p.waitFor(4, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError(String.join(" ", args) + " did not finish: " + Files.readString(out));
    }
    return new Cli(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  /** Every run on the server, with its history as the server returns it. */
  private static List<WorkflowExecutionHistory> histories() {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporal.address()).build());
    try {
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      // visibility is eventually consistent: wait until the three CLI actions are listed
      List<WorkflowExecution> runs = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
        runs.clear();
        client.listExecutions("").map(WorkflowExecutionMetadata::getExecution).forEach(runs::add);
        return runs.size() >= 3;
      });
      List<WorkflowExecutionHistory> histories = new ArrayList<>();
      for (WorkflowExecution run : runs) {
        histories.add(client.fetchHistory(run.getWorkflowId(), run.getRunId()));
      }
      return histories;
    } finally {
      stubs.shutdownNow();
    }
  }

  private static void createMoveTables() {
    CopyWaiter.awaitCopied(services, sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox()), Duration.ofSeconds(90));
  }

  private static String random() {
    byte[] b = new byte[8];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
