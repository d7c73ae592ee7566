package io.pointsman.demo;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.sandbox.stack.OpenedParts;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The pointsman CLI against dev mode and the sandbox: a dry run that changes nothing, a
 * SwitchTraffic that switches and prints its steps, an action that fails with its message and
 * exit 1, and Status. The tests build on each other, in order.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliOnSandboxTest {
  private static OpenedParts teardown;
  private static Playground world;

  @BeforeAll
  static void up() {
    teardown = new OpenedParts();
    try {
      world = Playground.start(teardown, new Narrator(System.out), LoopbackPorts.freePort());
    } catch (RuntimeException e) {
      teardown.closeAll("the playground");
      throw e;
    }
  }

  @AfterAll
  static void down() {
    if (teardown != null) {
      teardown.closeAll("the playground");
    }
  }

  private record Run(int exitCode, String output) {}

  private static Run pointsman(String... action) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    List<String> args = new java.util.ArrayList<>(List.of("MoveTables", "--workflow", Playground.WORKFLOW,
        "--target-keyspace", Playground.TARGET_KEYSPACE));
    args.addAll(List.of(action));
    int code = new InProcessCli(world.dev.address(), out).run(args).exitCode();
    String text = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    return new Run(code, text);
  }

  private static Map<String, List<String>> routingRules() {
    RoutingRules rules = world.services.store().getRequired(world.services.store().keys().routingRules()).value();
    return rules.asMap();
  }

  @Test
  @Order(1)
  void aDryRunPrintsThePlanAndChangesNothing() throws Exception {
    Map<String, List<String>> before = routingRules();
    SandboxSnapshot snapshot = SandboxSnapshot.take(world);

    Run run = pointsman("SwitchTraffic", "--dry-run");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("MoveTables SwitchTraffic (dry run) customer.commerce2customer")
        .contains("dry run results for workflow customer.commerce2customer");
    assertThat(snapshot.differencesTo(SandboxSnapshot.take(world))).as("changed by the dry run").isEmpty();
    // negative control: the snapshot does see a change anywhere under the topology roots
    var kv = world.sandbox.etcdClient().getKVClient();
    ByteSequence probe = ByteSequence.from(world.sandbox.options().topoPaths().globalRoot() + "/negative-control",
        StandardCharsets.UTF_8);
    kv.put(probe, ByteSequence.from("x", StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
    try {
      assertThat(snapshot.differencesTo(SandboxSnapshot.take(world))).singleElement(as(InstanceOfAssertFactories.STRING))
          .contains("negative-control created");
    } finally {
      kv.delete(probe).get(30, TimeUnit.SECONDS);
    }
    assertThat(before.get("customer")).containsExactly("commerce.customer");
  }

  /** MirrorTraffic from the CLI mirrors the moved tables' reads, and its percent 0 ends that, leaving the rest as it was. */
  @Test
  @Order(2)
  void mirrorTrafficMirrorsTheReadsAndPercentZeroEndsIt() throws Exception {
    SandboxSnapshot snapshot = SandboxSnapshot.take(world);

    Run run = pointsman("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "5");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("done    mirrorTableTraffic")
        .contains("MirrorTraffic was successful for workflow customer.commerce2customer")
        .contains("Current State: Reads Not Switched. Writes Not Switched");
    MirrorRules rules = world.services.store().getRequired(world.services.store().keys().mirrorRules()).value();
    assertThat(rules.rules()).as("one rule per moved table and read type").isNotEmpty()
        .allSatisfy(r -> {
          assertThat(r.fromTable()).startsWith("commerce.").containsAnyOf("@replica", "@rdonly");
          assertThat(r.toTable()).startsWith("customer.");
          assertThat(r.percent()).isEqualTo(5f);
        });

    Run removal = pointsman("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "0");

    assertThat(removal.exitCode()).as(removal.output()).isZero();
    assertThat(snapshot.differencesTo(SandboxSnapshot.take(world))).as("left by mirroring and its removal").isEmpty();
  }

  @Test
  @Order(3)
  void switchTrafficSwitchesReadsAndWritesAndPrintsEachStepAsItRuns() {
    Run run = pointsman("SwitchTraffic");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("MoveTables SwitchTraffic customer.commerce2customer: workflow "
            + "SwitchTraffic-customer.commerce2customer, run ")
        .containsPattern("\\+\\d+\\.\\ds  done    acquireLocks \\(\\d")
        .contains("done    switchReads").contains("done    stopSourceWrites").contains("done    waitForCatchup")
        .contains("done    createJournals").contains("done    changeRouting").contains("done    releaseLocks")
        .contains("SwitchTraffic was successful for workflow customer.commerce2customer")
        .contains("Start State: Reads Not Switched. Writes Not Switched")
        .contains("Current State: All Reads Switched. Writes Switched");
    assertThat(run.output().indexOf("stopSourceWrites")).isLessThan(run.output().indexOf("changeRouting"));
    assertThat(routingRules().get("customer")).containsExactly("customer.customer");
  }

  @Test
  @Order(4)
  void anActionThatFailsExitsOneWithTheFailuresMessage() {
    // Vitess refuses to cancel a workflow whose writes are switched, and so does pointsman
    Run run = pointsman("Cancel");

    assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).containsPattern("error: Cancel of customer.commerce2customer failed: \\S+");
    assertThat(routingRules().get("customer")).containsExactly("customer.customer");
  }

  @Test
  @Order(5)
  void statusReportsEachActionAndTheStateAndStartsNothing() throws Exception {
    Map<String, String> runs = latestRuns();
    SandboxSnapshot snapshot = SandboxSnapshot.take(world);

    Run run = pointsman("Status");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("The following vreplication streams exist for workflow customer.commerce2customer:")
        .containsPattern("id=\\d+ on customer/\\S+-\\d+: Status: \\w+\\. ")
        .contains("Traffic State: All Reads Switched. Writes Switched")
        .contains("MoveTables customer.commerce2customer (namespace default):")
        .containsPattern("SwitchTraffic +COMPLETED")
        .containsPattern("Cancel +FAILED")
        .contains("State after the last completed action (SwitchTraffic, finished ")
        .contains("All Reads Switched. Writes Switched");
    assertThat(runs.get(Pointsman.SWITCH_TRAFFIC)).as("the switch ran before").isNotEqualTo(NO_RUN);
    assertThat(latestRuns()).as("latest run of each action, before and after Status").isEqualTo(runs);
    assertThat(snapshot.differencesTo(SandboxSnapshot.take(world))).as("changed by Status").isEmpty();
  }

  /**
   * Show and Status with --format json on the sandbox (the worker reads the primaries' MySQL): stdout
   * is one JSON document with vtctld's field names, the streams of every target shard, and the
   * traffic state; nothing changes. ShowStatusInteropTest holds the same documents to vtctldclient's
   * own on real Vitess.
   */
  @Test
  @Order(6)
  void showAndStatusPrintVtctldsJsonAndChangeNothing() throws Exception {
    Map<String, String> runs = latestRuns();
    SandboxSnapshot snapshot = SandboxSnapshot.take(world);
    ObjectMapper json = new ObjectMapper();

    Run show = pointsman("show", "--format", "json");
    assertThat(show.exitCode()).as(show.output()).isZero();
    JsonNode wf = json.readTree(show.output()).path("workflows").get(0);
    assertThat(wf.path("name").asText()).isEqualTo("commerce2customer");
    assertThat(wf.path("source").path("keyspace").asText()).isEqualTo("commerce");
    assertThat(wf.path("target").path("keyspace").asText()).isEqualTo("customer");
    assertThat(wf.path("workflow_type").asText()).isEqualTo("MoveTables");
    assertThat(wf.path("shard_streams").size()).isEqualTo(wf.path("target").path("shards").size()).isPositive();
    wf.path("shard_streams").fields().forEachRemaining(e -> {
      assertThat(e.getKey()).matches("-?[0-9a-f]*-?[0-9a-f]*/\\w+-\\d{10}");
      for (JsonNode st : e.getValue().path("streams")) {
        assertThat(st.path("binlog_source").path("keyspace").asText()).isEqualTo("commerce");
        assertThat(st.path("state").asText()).isIn("Running", "Stopped", "Lagging", "Copying", "Error", "Init");
        assertThat(st.path("message").asText()).isEqualTo("FROZEN");
        for (String field : List.of("id", "shard", "tablet", "position", "stop_position", "db_name",
            "transaction_timestamp", "time_updated", "copy_states", "logs", "rows_copied", "tablet_types", "cells")) {
          assertThat(st.has(field)).as(field).isTrue();
        }
      }
    });

    Run status = pointsman("Status", "--format", "json");
    assertThat(status.exitCode()).as(status.output()).isZero();
    JsonNode st = json.readTree(status.output());
    assertThat(st.path("traffic_state").asText()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(st.path("shard_streams").fieldNames()).toIterable().allMatch(k -> k.startsWith("customer/"));
    assertThat(st.has("table_copy_state")).isTrue();

    assertThat(latestRuns()).as("latest run of each action, before and after Show and Status").isEqualTo(runs);
    assertThat(snapshot.differencesTo(SandboxSnapshot.take(world))).as("changed by Show and Status").isEmpty();
  }

  /**
   * A workflow name that does not exist: exit 1 with the worker's words, in both Show and Status; and
   * no warning with a stack trace in the worker's log (the demo's terminal shows it), as asking about
   * a workflow that is gone (the demo's Status after Complete) is an answer, not a fault.
   */
  @Test
  @Order(7)
  void showAndStatusOfAnUnknownWorkflowSayWhatIsMissing() {
    ListAppender<ILoggingEvent> sdkLog = new ListAppender<>();
    Logger temporalLog = (Logger) LoggerFactory.getLogger("io.temporal");
    sdkLog.start();
    temporalLog.addAppender(sdkLog);
    try {
      for (String command : List.of("Show", "Status")) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new InProcessCli(world.dev.address(), out).run(List.of("MoveTables", "--workflow", "nosuchflow",
            "--target-keyspace", Playground.TARGET_KEYSPACE, command)).exitCode();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(command + ": " + text).isEqualTo(1);
        assertThat(text).as(command).contains("error: workflow nosuchflow not found in keyspace customer");
      }
    } finally {
      temporalLog.detachAppender(sdkLog);
    }
    // the worker logs the activity's and the workflow's failure before the CLI hears of it
    assertThat(sdkLog.list).as("the SDK's warnings about Show and Status")
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .filteredOn(e -> e.getFormattedMessage().toLowerCase(java.util.Locale.ROOT).contains("showworkflow"))
        .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
  }

  private static final String NO_RUN = "none";
  private static final List<String> ACTIONS = List.of(Pointsman.SWITCH_TRAFFIC, Pointsman.REVERSE_TRAFFIC,
      Pointsman.COMPLETE_MIGRATION, Pointsman.CANCEL_MIGRATION, Pointsman.VALIDATE_TOPOLOGY);

  /**
   * The run id of the latest execution of each action's workflow id for this workflow (the ids the
   * CLI starts them under), {@code none} when there is none: an action started since shows as a
   * new run id or a new entry.
   */
  private static Map<String, String> latestRuns() {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(world.dev.address()).build());
    try {
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      Map<String, String> runs = new TreeMap<>();
      for (String action : ACTIONS) {
        String id = Pointsman.workflowId(action, Playground.TARGET_KEYSPACE, Playground.WORKFLOW);
        String run;
        try {
          run = client.newUntypedWorkflowStub(id).describe().getExecution().getRunId();
        } catch (WorkflowNotFoundException e) {
          run = NO_RUN;
        } catch (WorkflowServiceException e) {
          if (!(e.getCause() instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND)) {
            throw e;
          }
          run = NO_RUN;
        }
        runs.put(action, run);
      }
      return runs;
    } finally {
      stubs.shutdown();
    }
  }
}
