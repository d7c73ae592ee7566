package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.testing.TestServices;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker as its own process, configured by environment variables alone: it registers its
 * search attributes, runs workflows and activities against etcd, serves /metrics, and stops
 * cleanly on SIGTERM. Temporal is the SDK's test server on a port; etcd and MariaDB are the test
 * services.
 */
@Timeout(180)
class WorkerProcessTest {
  private static TestServer.PortBoundTestServer temporal;
  private static String temporalAddress;
  private static WorkflowServiceStubs service;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir
  Path dir;

  private Process process;

  @BeforeAll
  static void temporal() {
    int port = LoopbackPorts.freePort();
    temporal = TestServer.createPortBoundServer(port);
    temporalAddress = "127.0.0.1:" + port;
    service = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporalAddress).build());
  }

  @AfterAll
  static void stopTemporal() {
    if (service != null) {
      service.shutdownNow();
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  @AfterEach
  void killLeftover() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void startsFromEnvironmentVariablesAloneRunsAWorkflowAndStopsCleanlyOnSigterm() throws Exception {
    int metricsPort = LoopbackPorts.freePort();
    String root = "/worker-process-test/" + UUID.randomUUID();
    Path password = Files.writeString(dir.resolve("mysql-password"), TestServices.mysqlPassword() + "\n");
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("ETCD_ENDPOINTS", TestServices.etcdEndpoint());
    env.put("TOPO_GLOBAL_ROOT", root + "/global");
    env.put("TOPO_CELL_ROOT_PREFIX", root);
    env.put("MYSQL_USER", TestServices.mysqlUser());
    env.put("MYSQL_PASSWORD_FILE", password.toString());
    env.put("METRICS_PORT", Integer.toString(metricsPort));
    env.put("WORKER_SHUTDOWN_GRACE", "5s");
    Path log = dir.resolve("worker.log");
    process = start(env, log);

    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .ignoreException(ConnectException.class)
        .until(() -> metrics(metricsPort).contains("temporal_num_pollers"));

    // A SwitchTraffic of a keyspace the topology lacks: the workflow runs its first step on this
    // worker, which reads etcd under the configured root and fails it; the workflow upserts its
    // search attributes first, so they were registered.
    WorkflowClient client = WorkflowClient.newInstance(service);
    SwitchTrafficWorkflow wf = client.newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "nowhere",
            "wf")).setWorkflowExecutionTimeout(Duration.ofMinutes(1)).build());
    assertThatThrownBy(() -> wf.switchTraffic(SwitchTrafficRequest.of("wf", "nowhere")))
        .isInstanceOf(WorkflowFailedException.class)
        .rootCause().hasMessageContaining(root + "/global/keyspaces/nowhere/Keyspace does not exist");

    String scraped = metrics(metricsPort);
    // checked line by line, so a failure names the missing metric instead of printing the whole scrape
    for (String expected : List.of("pointsman_locks_held 0.0",
        // the watch of eager activities is registered (the workflow scheduled no activity)
        "pointsman_eager_activities_requested_total 0.0", "pointsman_eager_activities_received_total 0.0",
        "pointsman_step_duration_seconds_count{outcome=\"failed\",step=\"buildTrafficSwitcher\"} 1",
        // a local activity since the reads before the locks became local ones (local-reads-outside-the-write-window)
        "temporal_local_activity_execution_latency_seconds_count{activity_type=\"BuildTrafficSwitcher\"")) {
      assertThat(scraped.contains(expected)).as("/metrics has " + expected).isTrue();
    }
    assertThat(scraped.contains(TestServices.mysqlPassword())).as("/metrics shows the MySQL password").isFalse();

    process.destroy(); // SIGTERM
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30s").isTrue();
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isEqualTo(143); // the JVM's exit status after a SIGTERM
    assertThat(output).contains("pointsman worker: stop requested").contains("pointsman worker stopped")
        .doesNotContain(TestServices.mysqlPassword()).doesNotContain(" ERROR ");
    assertThatThrownBy(() -> metrics(metricsPort)).isInstanceOf(ConnectException.class);
  }

  @Test
  void aBadVariableStopsItWithExitCodeTwoAndTheVariableNamed() throws Exception {
    Map<String, String> env = Map.of("MYSQL_USER", "pointsman", "METRICS_PORT", "nine");
    Path log = dir.resolve("bad.log");
    process = start(env, log);

    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readString(log)).contains("METRICS_PORT must be a port number from 0 to 65535, got 'nine'");
  }

  @Test
  void aMissingMysqlUserStopsItWithExitCodeTwo() throws Exception {
    Path log = dir.resolve("missing.log");
    process = start(Map.of(), log);

    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readString(log)).contains("MYSQL_USER is not set");
  }

  /** The worker's main in a JVM of its own whose environment is exactly {@code env}. */
  private static Process start(Map<String, String> env, Path log) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        WorkerMain.class.getName()));
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    return pb.start();
  }

  private static String metrics(int port) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? r.body() : "";
  }
}
