package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.Progress;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a real Temporal endpoint (the test server on a port) whose worker runs the
 * workflows but no activities: what it starts, refuses and reports. The CLI switching traffic on
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
