package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * pointsman switches a MoveTables workflow that vtctldclient created and real VReplication copied,
 * on a real Vitess 24 cluster, and hands it back and forth with vtctldclient: each side reads the
 * other's switch as its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PointsmanOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final List<TabletType> ALL = SwitchTrafficRequest.ALL_TABLET_TYPES;

  private static final FaultInjection faults = new FaultInjection();

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW))
      .withSwitchWrapper(faults);

  /**
   * pointsman's keyspace lock is Vitess's: a vtctld command that locks the keyspace while pointsman
   * holds it inside the write window (held there before the journal) queues behind it, and runs once
   * the switch released it.
   */
  @Test
  @Order(1)
  void pointsmanSwitchesTrafficWhileAVtctldCommandWaitsForItsKeyspaceLock() throws Exception {
    FaultInjection.Block held = faults.blockOnce("createJournals", FaultInjection.When.BEFORE);
    SwitchTrafficWorkflow wf = worker().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW));
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WORKFLOW, "customer"));
    await("pointsman inside the write window").atMost(Duration.ofMinutes(2)).until(held::reached);
    assertThat(worker().lockKeys("customer")).as("pointsman's keyspace lock").hasSize(1);

    CompletableFuture<String> vtctld = CompletableFuture.supplyAsync(() -> cluster().vtctldclient(
        "SetKeyspaceDurabilityPolicy", "--durability-policy=none", "customer"));
    await("vtctld queued behind pointsman's lock").atMost(Duration.ofSeconds(30))
        .until(() -> worker().lockKeys("customer").size() == 2);
    assertThat(vtctld).as("vtctld's command while pointsman holds the keyspace").isNotDone();

    held.release();
    ActionResult result = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
    assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
    vtctld.get(60, TimeUnit.SECONDS);
    assertThat(worker().lockKeys("customer")).isEmpty();

    assertThat(vtctldState()).isEqualTo(ALL_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");
    // a write through vtgate now lands on the target and is carried back to commerce by the reverse stream
    cluster().execute("customer", "insert into customer(customer_id, email) values (700, 'after@example.com')");
    assertThat(cluster().query("customer", "select email from customer where customer_id = 700"))
        .containsExactly(List.of("after@example.com"));
  }

  @Test
  @Order(2)
  void vtctldclientReversesWhatPointsmanSwitched() {
    cluster().vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "reversetraffic");
    assertThat(vtctldState()).isEqualTo(NOT_SWITCHED);
  }

  @Test
  @Order(3)
  void afterVtctldclientSwitchesPointsmanReversesAndSwitchesAgain() {
    cluster().vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "switchtraffic");
    assertThat(vtctldState()).isEqualTo(ALL_SWITCHED);
    ActionResult reversed = worker().reverseTraffic("customer", WORKFLOW, ALL);
    assertThat(reversed.currentState()).isEqualTo(NOT_SWITCHED);
    assertThat(vtctldState()).isEqualTo(NOT_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
    assertThat(switchAll().currentState()).isEqualTo(ALL_SWITCHED);
  }

  @Test
  @Order(4)
  void pointsmanCompletesAndNothingIsLeftForVtctldclient() {
    ActionResult done = worker().complete("customer", WORKFLOW);
    assertThat(done.summary())
        .isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");
    for (String keyspace : List.of("customer", "commerce")) {
      assertThat(cluster().vtctldclient("Workflow", "--keyspace", keyspace, "list")).doesNotContain(WORKFLOW);
    }
    assertThat(cluster().vtctldclient("GetRoutingRules")).doesNotContain("commerce.customer");
  }

  private static ActionResult switchAll() {
    return worker().switchTraffic("customer", WORKFLOW, ALL);
  }

  private static String vtctldState() {
    return cluster().trafficState("MoveTables", "customer", WORKFLOW);
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
