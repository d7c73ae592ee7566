package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.testing.TestServices;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.RawValue;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dev mode on the real Temporal dev server (its binary from POINTSMAN_TEMPORAL_BIN): the UI serves,
 * the worker registered pointsman's search attributes through the server's operator API, and a
 * workflow is still there after dev mode (worker and server) stopped and started again on the same
 * data folder. Without the binary: the test server, and a line saying why.
 */
@Timeout(240)
class DevModeTest {
  @TempDir
  Path dir;

  @Test
  void devModeRunsTheRealServerWhoseUiServesAndWhoseDatabaseOutlivesARestart() throws Exception {
    TemporalDevServer.Lookup binary = TemporalDevServer.find(Map.of("POINTSMAN_TEMPORAL_BIN",
        TestServices.temporalBinary()));
    int port = LoopbackPorts.freePort();
    String runId;
    String workflowId = "SwitchTraffic-devmode-" + System.nanoTime();
    try (DevMode dev = DevMode.start(port, config(), dir, binary)) {
      assertThat(dev.serverDescription()).contains("Temporal dev server v1.5.1", dir.resolve("temporal.db").toString());
      assertThat(dev.uiUrl()).hasValueSatisfying(ui -> assertThat(ui)
          .matches("http://127\\.0\\.0\\.1:\\d+/namespaces/default/workflows"));
      HttpResponse<String> page = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(dev.uiUrl().orElseThrow())).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);

      WorkflowServiceStubs stubs = stubs(dev.address());
      try {
        OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
            .setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
        Map<String, IndexedValueType> attributes = operator.blockingStub().listSearchAttributes(
            ListSearchAttributesRequest.newBuilder().setNamespace("default").build()).getCustomAttributesMap();
        for (var key : Pointsman.SEARCH_ATTRIBUTES) {
          assertThat(attributes).containsEntry(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
        }
        // a workflow the worker fails at once (bad input needs neither etcd nor MySQL)
        WorkflowStub stub = WorkflowClient.newInstance(stubs).newUntypedWorkflowStub(Pointsman.SWITCH_TRAFFIC,
            WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(workflowId).build());
        runId = stub.start(new RawValue(Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFrom("{\"workflow\": \"w\", \"targetKeyspce\": \"k\"}", StandardCharsets.UTF_8))
            .build())).getRunId();
        Throwable failed = catchThrowable(() -> stub.getResult(30, TimeUnit.SECONDS, Object.class));
        assertThat(failed).isInstanceOf(WorkflowFailedException.class);
        assertThat(failed.getCause()).hasMessageContaining("unknown field targetKeyspce");
        operator.shutdownNow();
      } finally {
        stubs.shutdownNow();
      }
    }

    try (DevMode again = DevMode.start(port, config(), dir, binary)) {
      WorkflowServiceStubs stubs = stubs(again.address());
      try {
        var execution = WorkflowClient.newInstance(stubs).newUntypedWorkflowStub(workflowId).describe();
        assertThat(execution.getExecution().getRunId()).isEqualTo(runId);
        assertThat(execution.getWorkflowExecutionInfo().getStatus())
            .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED);
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  @Test
  void withoutTheBinaryDevModeSaysWhyAndRunsTheTestServer() throws Exception {
    TemporalDevServer.Lookup none = TemporalDevServer.find(Map.of("POINTSMAN_TEMPORAL_BIN",
        dir.resolve("no-such-temporal").toString()));
    assertThat(none.binary()).isEmpty();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try (DevMode dev = DevMode.start(LoopbackPorts.freePort(), config(), dir, none)) {
      assertThat(dev.uiUrl()).isEmpty();
      assertThat(dev.serverDescription()).contains("test server");
      // it hands out nothing eagerly whatever its settings: no advice to change one (a bench run said it)
      assertThat(dev.worker().eagerActivities().warns()).as("eager activity warning").isFalse();
    } finally {
      System.setOut(stdout);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("using the SDK's in-memory test server",
        "because POINTSMAN_TEMPORAL_BIN=" + dir.resolve("no-such-temporal") + " is not an executable file");
  }

  private static WorkerConfig config() {
    return WorkerConfig.fromEnv(Map.of("ETCD_ENDPOINTS", TestServices.etcdEndpoint(),
        "MYSQL_USER", TestServices.mysqlUser(), "MYSQL_PASSWORD", TestServices.mysqlPassword(),
        "METRICS_PORT", "0"));
  }

  private static WorkflowServiceStubs stubs(String address) {
    return WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
  }
}
