package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.cli.PointsmanCli;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Switches on a real Temporal server (the CLI's dev server, SQLite), not the SDK's test server, so
 * what the test server does differently (visibility, search attribute registration, timeouts,
 * restarts, history as the server stores it) cannot hide a bug: a switch is found by its search
 * attributes, its history fetched with {@code pointsman History} replays on today's workflows, and a
 * switch survives its worker dying mid-step and the server restarting on the same database.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealTemporalSwitchTest {
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  /** The server's count of activities it handed to a worker in its answer to a workflow task. */
  private static final String EAGER_STARTS = "activity_eager_execution";

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().realTemporal("pointsman-real-temporal")
      .switchFaults(faults).resetFaultsBeforeClose().createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  @Order(1)
  void aSwitchIsListedByItsSearchAttributesAndItsFetchedHistoryReplays() throws Exception {
    String workflowId = id(Pointsman.SWITCH_TRAFFIC, KS, WF);
    TemporalServerMetrics metrics = new TemporalServerMetrics(WORLD.server().metricsUrl());
    long eagerBefore = metrics.counter(EAGER_STARTS, Pointsman.TASK_QUEUE);
    ActionResult result = world().workflow(SwitchTrafficWorkflow.class, workflowId)
        .switchTraffic(SwitchTrafficRequest.of(WF, KS));
    assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");

    // visibility is the server's own (SQL), eventually consistent: the test server has none of it
    String query = "TargetKeyspace='" + KS + "' AND VReplicationWorkflow='" + WF + "' AND SwitchPhase='done'"
        + " AND WorkflowId='" + workflowId + "'";
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
        .until(() -> world().client().listExecutions(query).count() == 1);

    Path file = WORLD.dir().resolve("history.json");
    StringWriter out = new StringWriter();
    int exit = PointsmanCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
        .execute("--temporal-address", WORLD.server().address(), "History", "--workflow-id", workflowId, "--out",
            file.toString());
    assertThat(exit).as(out.toString()).isZero();
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(Files.readString(file));
    assertThat(history.getEvents()).extracting(HistoryEvent::getEventType)
        .contains(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
    // the activities carry their step's summary as the server stored it
    assertThat(history.getEvents()).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .extracting(e -> e.getUserMetadata().getSummary().getData().toStringUtf8())
        .anyMatch(s -> s.contains("switchReads: "));
    // After each acquisition the local steps waited for holdLocks's signal, not for a timer: this
    // server fires a timer a second late at the earliest (its default timer time shift).
    assertThat(history.getEvents()).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .extracting(e -> e.getWorkflowExecutionSignaledEventAttributes().getSignalName())
        .containsExactly(HoldingStarted.SIGNAL, HoldingStarted.SIGNAL);
    assertThat(history.getEvents()).extracting(HistoryEvent::getEventType).doesNotContain(EventType.EVENT_TYPE_TIMER_FIRED);
    // and the locks, free, were taken by the local try in the task that needed them, not by an activity
    List<String> scheduled = history.getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
    assertThat(scheduled).doesNotContain("acquireLocks").contains("holdLocks");
    // Each holdLocks started in the answer to the task that scheduled it (TemporalDevServer turns
    // eager activities on), not after a trip through matching; the server counts every such start.
    long holds = scheduled.stream().filter("holdLocks"::equals).count();
    assertThat(holds).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(metrics.counter(EAGER_STARTS, Pointsman.TASK_QUEUE) - eagerBefore).isGreaterThanOrEqualTo(holds));
    assertReplays(history);

    reverse();
  }

  @Test
  @Order(2)
  void aSwitchSurvivesItsWorkerDyingMidStepAndTheServerRestartingOnTheSameDatabase() throws Exception {
    FaultInjection.Block held = faults.blockOnce("switchReads", FaultInjection.When.BEFORE);
    SwitchTrafficWorkflow wf = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
    String runId = WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WF, KS)).getRunId();
    await().atMost(Duration.ofSeconds(60)).until(held::reached);

    world().stopWorker();
    long db = Files.size(WORLD.server().database());
    WORLD.server().restart();
    assertThat(WORLD.server().database()).exists();
    assertThat(Files.size(WORLD.server().database())).isPositive();
    assertThat(db).isPositive();
    world().startWorker();
    held.release();

    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    // the same run, kept across the restart in temporal.db, finished by the new worker: the step the
    // dead worker held times out on its heartbeat and is retried, holdLocks re-attaches to the leases
    ActionResult result = stub.getResult(4, TimeUnit.MINUTES, ActionResult.class);
    assertThat(stub.getExecution().getRunId()).isEqualTo(runId);
    assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");
    List<HistoryEvent> events = world().client().fetchHistory(stub.getExecution().getWorkflowId()).getEvents();
    assertThat(events).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
        .anyMatch(e -> e.getActivityTaskStartedEventAttributes().getAttempt() > 1);

    reverse();
  }

  /** Back to nothing switched, for the next case. */
  private static void reverse() {
    ActionResult back = world().workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC, KS, WF))
        .reverseTraffic(SwitchTrafficRequest.of(WF, KS));
    assertThat(back.currentState()).isEqualTo(NOT_SWITCHED);
    world().awaitStreamsRunning(KS, WF);
  }

  /** What HistoryReplayTest does with the corpus: the real worker's registration, no error. */
  static void assertReplays(WorkflowExecutionHistory history) throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("replay");
      WorkflowRegistration.registerWorkflows(worker);
      var results = WorkflowReplayer.replayWorkflowExecutions(List.of(history), false, worker);
      assertThat(results.hadAnyError()).as(() -> results.allErrors().toString()).isFalse();
    }
  }
}
