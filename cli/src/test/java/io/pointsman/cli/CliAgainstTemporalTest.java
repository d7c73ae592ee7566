package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a real Temporal endpoint (the test server on a port) whose worker runs the
 * workflows but no activities: what it starts, refuses and reports. A second worker answers the
 * reads before the locks, for dry runs that end ({@link CannedReads}). The CLI switching traffic on
 * the sandbox end to end is in the demo module.
 */
@Timeout(120)
class CliAgainstTemporalTest {
  @AutoClose
  private static LocalTemporal temporal;

  @BeforeAll
  static void up() {
    temporal = new LocalTemporal();
  }

  private static CliRun cli(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--temporal-address";
    all[1] = temporal.address;
    System.arraycopy(args, 0, all, 2, args.length);
    return CliRun.of(all);
  }

  private static boolean exists(String workflowId) {
    try {
      temporal.client.newUntypedWorkflowStub(workflowId).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  @Test
  void aBadFlagValueStartsNothing() {
    CliRun run = cli("MoveTables", "-w", "wf1", "--target-keyspace", "ks1", "SwitchTraffic", "--timeout", "500ms");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("invalid value for --timeout: must be at least 1s, got 500ms")
        .contains("Nothing was started");
    assertThat(run.out()).isEmpty();
    assertThat(exists(Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "ks1", "wf1"))).isFalse();
  }

  @Test
  void anUnknownFlagStartsNothing() {
    CliRun run = cli("MoveTables", "-w", "wf2", "--target-keyspace", "ks2", "SwitchTraffic", "--no-such-flag");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unknown option: '--no-such-flag'");
    assertThat(exists(Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "ks2", "wf2"))).isFalse();
  }

  /** vtctldclient's --force is known by name, and refused with the reason: pointsman has no forced mode. */
  @Test
  void vtctldclientsForceIsRefusedWithItsReasonAndStartsNothing() {
    CliRun run = cli("MoveTables", "-w", "wf2f", "--target-keyspace", "ks2", "SwitchTraffic", "--force");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("invalid value for --force: cannot be honoured").contains("Nothing was started");
    assertThat(exists(Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "ks2", "wf2f"))).isFalse();
  }

  @Test
  void aSecondStartOfARunningActionIsRefusedAndStatusShowsTheRunningOne() {
    String id = Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "ks3", "wf3");
    WorkflowStub running = temporal.client.newUntypedWorkflowStub(Pointsman.SWITCH_TRAFFIC,
        WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(Pointsman.TASK_QUEUE).build());
    running.start(SwitchTrafficRequest.of("wf3", "ks3"));
    await().atMost(Duration.ofSeconds(20)).until(() -> !running.query("progress", Progress.class).steps().isEmpty());

    CliRun second = cli("MoveTables", "-w", "wf3", "--target-keyspace", "ks3", "SwitchTraffic");

    assertThat(second.exitCode()).isEqualTo(1);
    assertThat(second.err()).contains("a SwitchTraffic of ks3.wf3 is already running as workflow " + id)
        .contains("pointsman MoveTables --workflow wf3 --target-keyspace ks3 Status");
    assertThat(running.describe().getStatus()).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);

    CliRun status = cli("MoveTables", "-w", "wf3", "--target-keyspace", "ks3", "Actions");

    assertThat(status.exitCode()).isZero();
    assertThat(status.out()).contains("MoveTables ks3.wf3 (namespace default):")
        .containsPattern("SwitchTraffic +RUNNING")
        .contains("phase: ")
        .contains("start   buildTrafficSwitcher");
    running.terminate("test over");
  }

  @Test
  void statusOfAWorkflowWithNoActionSaysSoAndStartsNothing() {
    CliRun status = cli("Reshard", "-w", "wf4", "--target-keyspace", "ks4", "Actions");

    assertThat(status.exitCode()).isZero();
    assertThat(status.out()).contains("No pointsman action has run on ks4.wf4 in namespace default");
    for (String type : new String[] {Pointsman.SWITCH_TRAFFIC, Pointsman.REVERSE_TRAFFIC,
        Pointsman.COMPLETE_MIGRATION, Pointsman.CANCEL_MIGRATION}) {
      assertThat(exists(Pointsman.workflowId(type, "ks4", "wf4"))).isFalse();
    }
  }

  @Test
  void aFailedWorkflowIsExitOneWithItsMessage() {
    // a terminated run stands for any end other than success: the CLI prints why and exits 1
    String id = Pointsman.workflowId(Pointsman.CANCEL_MIGRATION, "ks5", "wf5");
    Thread terminator = new Thread(() -> {
      await().atMost(Duration.ofSeconds(20)).until(() -> exists(id));
      temporal.client.newUntypedWorkflowStub(id).terminate("operator stopped it");
    });
    terminator.start();

    CliRun run = cli("MoveTables", "-w", "wf5", "--target-keyspace", "ks5", "Cancel");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("MoveTables Cancel ks5.wf5: workflow " + id);
    assertThat(run.err()).contains("error: Cancel of ks5.wf5 failed: the workflow was terminated: operator stopped it");
  }

  /**
   * The CLI starts MirrorTraffic as the worker's workflow type under its canonical id, with the
   * flags as its input; while it waits at its first read, Actions lists it, and ended from outside
   * it fails as every action does.
   */
  @Test
  void mirrorTrafficStartsTheWorkerWorkflowWithTheFlagsAndActionsListsIt() throws Exception {
    String id = Pointsman.workflowId(Pointsman.MIRROR_TRAFFIC, "ks8", "wf8");
    AtomicReference<CliRun> mirror = new AtomicReference<>();
    Thread started = new Thread(() -> mirror.set(cli("MoveTables", "-w", "wf8", "--target-keyspace", "ks8",
        "mirrortraffic", "--tablet-types", "replica,rdonly", "--percent", "5")));
    started.setDaemon(true); // a CLI left following after a failed assertion must not hold the JVM
    started.start();
    WorkflowStub stub = temporal.client.newUntypedWorkflowStub(id);
    await().atMost(Duration.ofSeconds(20)).until(() -> exists(id)
        && !stub.query("progress", Progress.class).steps().isEmpty());

    assertThat(stub.describe().getWorkflowType()).isEqualTo("MirrorTraffic");
    assertThat(startInput(id, MirrorTrafficRequest.class)).isEqualTo(MirrorTrafficRequest.of("wf8", "ks8")
        .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)).withPercent(5f));
    CliRun actions = cli("MoveTables", "-w", "wf8", "--target-keyspace", "ks8", "Actions");
    assertThat(actions.exitCode()).isZero();
    assertThat(actions.out()).containsPattern("MirrorTraffic +RUNNING").contains("workflow " + id)
        .contains("start   buildTrafficSwitcher");

    stub.terminate("test over");
    started.join(Duration.ofSeconds(30).toMillis());
    assertThat(started.isAlive()).as("the CLI stopped following").isFalse();
    assertThat(mirror.get().exitCode()).isEqualTo(1);
    assertThat(mirror.get().out()).contains("MoveTables MirrorTraffic ks8.wf8: workflow " + id);
    assertThat(mirror.get().err()).contains("error: MirrorTraffic of ks8.wf8 failed: the workflow was terminated");
  }

  /**
   * A MirrorTraffic dry run to its end, on the worker whose reads answer ({@link CannedReads}): the
   * plan in text; in json, stdout is WorkflowMirrorTrafficResponse alone and the plan goes to stderr.
   */
  @Test
  void aMirrorTrafficDryRunPrintsThePlanAndInJsonVtctldsResponse() throws Exception {
    String[] dryRun = {"--task-queue", CannedReads.TASK_QUEUE, "MoveTables", "-w", "wf9", "--target-keyspace", "ks9",
        "MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "5", "--dry-run"};
    String mirroring = "Mirroring 5.00 percent of traffic from keyspace " + CannedReads.SOURCE_KEYSPACE
        + " to keyspace ks9 for tablet types [REPLICA,RDONLY]";

    CliRun text = cli(dryRun);

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).contains("MoveTables MirrorTraffic (dry run) ks9.wf9")
        .contains("MirrorTraffic dry run results for workflow ks9.wf9").contains("Lock keyspace ks9")
        .contains(mirroring);

    String[] json = Arrays.copyOf(dryRun, dryRun.length + 2);
    json[dryRun.length] = "--format";
    json[dryRun.length + 1] = "json";
    CliRun asJson = cli(json);

    assertThat(asJson.exitCode()).as(asJson.err()).isZero();
    JsonNode response = new ObjectMapper().readTree(asJson.out());
    List<String> fields = new ArrayList<>();
    response.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("summary", "start_state", "current_state");
    assertThat(response.path("summary").asText()).startsWith("MirrorTraffic dry run results for workflow ks9.wf9");
    assertThat(response.path("start_state").asText()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertThat(asJson.err()).contains(mirroring);

    CliRun actions = cli("MoveTables", "-w", "wf9", "--target-keyspace", "ks9", "Actions");
    assertThat(actions.out()).containsPattern("MirrorTraffic +COMPLETED")
        .contains("MirrorTraffic dry run results for workflow ks9.wf9").contains(mirroring);
  }

  @Test
  void historyWritesTheJsonThatReplayReads(@TempDir Path dir) throws Exception {
    String id = "SwitchTraffic-history-" + UUID.randomUUID();
    WorkflowStub run = temporal.client.newUntypedWorkflowStub(Pointsman.SWITCH_TRAFFIC,
        WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(Pointsman.TASK_QUEUE).build());
    run.start(Map.of("workflow", "wf7", "targetKeyspace", "ks7", "dryrun", true)); // misspelled: fails at once
    await().atMost(Duration.ofSeconds(20)).until(() -> run.describe().getStatus()
        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED);
    Path out = dir.resolve("h.json");

    CliRun history = cli("History", "--workflow-id", id, "--out", out.toString());

    assertThat(history.exitCode()).as(history.err()).isZero();
    assertThat(history.out()).contains("events of " + id).contains(out.toString());
    WorkflowExecutionHistory read = WorkflowExecutionHistory.fromJson(Files.readString(out));
    assertThat(read.getEvents().get(0).getEventType()).isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
    assertThat(read.getLastEvent().getEventType()).isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
    assertThat(cli("History", "--workflow-id", id).out()).contains("EVENT_TYPE_WORKFLOW_EXECUTION_STARTED");
  }

  /** The input the workflow was started with, as the worker decodes it. */
  private static <T> T startInput(String workflowId, Class<T> type) {
    Payloads input = temporal.client.fetchHistory(workflowId).getEvents().get(0)
        .getWorkflowExecutionStartedEventAttributes().getInput();
    return DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0, Optional.of(input), type, type);
  }

  @Test
  void anUnreachableTemporalIsOneLine() {
    int closed = LocalTemporal.freePort();
    CliRun run = CliRun.of("--temporal-address", "127.0.0.1:" + closed, "MoveTables", "-w", "wf6",
        "--target-keyspace", "ks6", "SwitchTraffic");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: cannot reach Temporal at 127.0.0.1:" + closed);
    assertThatThrownBy(() -> temporal.client.newUntypedWorkflowStub(
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "ks6", "wf6")).describe())
        .isInstanceOf(WorkflowNotFoundException.class);
  }
}
