package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.applicationFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
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
 * No Cancel may leave a workflow with no side taking writes: past the journal a failing switch
 * keeps trying to finish, Cancel refuses a workflow whose switch wrote its journal, and Cancel
 * lifts a write barrier a failed switch could not take off the source. The cases run in order on
 * one MoveTables world, each starting where the one before left it.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CancelAfterJournalTest {
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  private static final String SOURCE = "commerce";
  private static final List<String> MOVED = List.of("corder", "customer");

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().faults(faults).resetFaultsAfterEach()
      .build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  /** A switch whose undo failed leaves the source denied; Cancel gives it its writes back. */
  @Test
  @Order(1)
  void cancelLiftsTheBarrierAFailedSwitchLeftOnTheSource() throws Exception {
    world().createMoveTables();
    faults.failOnce("stopSourceWrites", When.AFTER);
    faults.failOnce("allowSourceWrites", When.BEFORE);
    ApplicationFailure cause = applicationFailure(() -> newSwitch().switchTraffic(SwitchTrafficRequest.of(WF, KS)));
    assertThat(cause.getOriginalMessage()).contains("compensation");
    assertThat(triggers(world(), SOURCE, "0")).as("the barrier the failed undo left").isNotEmpty();

    ActionResult cancelled = cancel();

    assertThat(cancelled.summary()).isEqualTo("Successfully cancelled the commerce2customer workflow in the customer keyspace");
    world().assertDefinedState(KS, WF, "NO_WORKFLOW");
    assertSourceWritable();
  }

  /** Past the journal a failed step is tried again, visibly, until the switch finishes. */
  @Test
  @Order(2)
  void aSwitchFailingAfterTheJournalKeepsTryingAndFinishes() throws Exception {
    world().createMoveTables();
    faults.failUntilReset("changeRouting", When.BEFORE);
    SwitchTrafficWorkflow wf = newSwitch();
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WF, KS));

    awaitRetryingOrClosed(wf);
    assertThat(status(wf)).as("the switch is still running after changeRouting failed past the journal")
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(wf.progress().phase()).contains("trying again");
    faults.reset();

    ActionResult done = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
    assertThat(done.currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(wf.progress().steps()).filteredOn(s -> s.name().equals("changeRouting")).hasSizeGreaterThan(1);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");

    world().workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC, KS, WF))
        .reverseTraffic(SwitchTrafficRequest.of(WF, KS));
    assertThat(world().workflowState(KS, WF)).isEqualTo(NOT_SWITCHED);
  }

  /**
   * A switch stopped past its journal (here its workflow is terminated while it tries again) leaves
   * the source denied and routing on it. Cancel refuses, saying to rerun SwitchTraffic, which finishes.
   */
  @Test
  @Order(3)
  void cancelRefusesAWorkflowWhoseSwitchWroteItsJournalAndARerunFinishesIt() throws Exception {
    assertThat(world().workflowState(KS, WF)).isEqualTo(NOT_SWITCHED);
    faults.failUntilReset("changeRouting", When.BEFORE);
    SwitchTrafficWorkflow wf = newSwitch();
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WF, KS).withLockTtl(Duration.ofSeconds(6)));
    awaitRetryingOrClosed(wf);
    if (status(wf) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      WorkflowStub.fromTyped(wf).terminate("the test stops the switch past its journal");
    }
    faults.reset();
    assertThat(triggers(world(), SOURCE, "0")).as("the source stays denied past the journal").isNotEmpty();

    ApplicationFailure refused = applicationFailure(CancelAfterJournalTest::cancel);

    assertThat(refused.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(refused.getOriginalMessage()).contains("journal").contains("rerun SwitchTraffic");
    for (String shard : world().store().listShards(KS)) {
      assertThat(E2eChecks.tables(world(), KS, shard)).as("target tables on %s", shard).containsAll(MOVED);
    }

    // The streams have stood stopped for cutover since the first run; their lag is no reason to
    // refuse a rerun past the journal (see the report of this change: canSwitch still asks).
    ActionResult resumed = newSwitch().switchTraffic(SwitchTrafficRequest.of(WF, KS)
        .withMaxReplicationLagAllowed(Duration.ofHours(1)));
    assertThat(resumed.currentState()).isEqualTo(ALL_SWITCHED);
    world().assertDefinedState(KS, WF, "ALL_SWITCHED");
  }

  private static void awaitRetryingOrClosed(SwitchTrafficWorkflow wf) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() ->
        status(wf) != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING || phaseOf(wf).contains("trying again"));
  }

  private static String phaseOf(SwitchTrafficWorkflow wf) {
    Progress p = wf.progress();
    return p == null || p.phase() == null ? "" : p.phase();
  }

  private static WorkflowExecutionStatus status(SwitchTrafficWorkflow wf) {
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    return world().client().getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(world().client().getOptions().getNamespace()).setExecution(stub.getExecution()).build())
        .getWorkflowExecutionInfo().getStatus();
  }

  private static void assertSourceWritable() throws Exception {
    assertThat(triggers(world(), SOURCE, "0")).isEmpty();
    assertThat(world().services.barrier().deniedTables(E2eChecks.primary(world(), SOURCE, "0"))).isEmpty();
    assertThat(world().store().getRequired(world().store().keys().shard(SOURCE, "0")).value()
        .deniedTables(TabletType.PRIMARY)).isEmpty();
  }

  private static SwitchTrafficWorkflow newSwitch() {
    return world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
  }

  private static ActionResult cancel() {
    return world().workflow(CancelMigrationWorkflow.class, id(Pointsman.CANCEL_MIGRATION, KS, WF))
        .cancel(CancelRequest.of(WF, KS));
  }

}
