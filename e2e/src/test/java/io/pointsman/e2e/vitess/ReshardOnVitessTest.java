package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.validate.ValidationReport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * pointsman switches a Reshard workflow ({@code customer/0} into {@code -80,80-}) that vtctldclient
 * created and real VReplication copied, on a real Vitess 24 cluster, and hands it back and forth with
 * vtctldclient, under a constant write load through vtgate that loses and fails no write.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardOnVitessTest {
  private static final String WORKFLOW = "cust2cust";
  private static VitessCluster cluster;
  private static PointsmanOnVitess worker;
  private static int runs;

  /** Far above the seeded customers 1-4 and the test's own 700. */
  private static final long FIRST_ID = 100_000;
  private static VtgateLoad load;
  private static WriteLedger ledger;

  @BeforeAll
  static void start() throws Exception {
    cluster = ReshardCluster.start(WORKFLOW);
    worker = PointsmanOnVitess.start(cluster);
    ledger = new WriteLedger(cluster, FIRST_ID);
    load = new VtgateLoad(cluster, 50, 8, FIRST_ID);
  }

  /**
   * After every action, under 50 inserts/s through vtgate throughout: writes flow again, none has
   * failed since the load started, and vtgate returns every acknowledged write exactly once (the
   * primaries are not compared: a Reshard's source and target shards are one keyspace's, and the
   * streams keep copies on both sides by design).
   */
  @AfterEach
  void theLoadLostNothing() throws Exception {
    long after = load.nextId();
    await("writes flow again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> load.ackedFrom(after) >= 10);
    VtgateLoad.LoadReport seen = load.snapshot();
    assertThat(seen.failed()).as(seen.summary()).isEmpty();
    WriteLedger.Check check = ledger.check("customer", seen.acked());
    assertThat(check.vtgateReadError()).as(check.describe()).isEmpty();
    assertThat(check.viaVtgateMissing()).as(check.describe()).isEmpty();
    assertThat(check.viaVtgateDuplicated()).as(check.describe()).isEmpty();
    assertThat(check.wrongEmail()).as(check.describe()).isEmpty();
  }

  @AfterAll
  static void stop() {
    if (load != null) {
      load.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void pointsmanSwitchesTheReshardAndVtgateServesFromTheNewShards() throws Exception {
    assertThat(switchTraffic().currentState()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(vtctldState()).isEqualTo("All Reads Switched. Writes Switched");
    assertValid("ALL_SWITCHED");
    cluster.execute("customer", "insert into customer(customer_id, email) values (700, 'after@example.com')");
    assertThat(cluster.query("customer", "select email from customer where customer_id = 700"))
        .containsExactly(List.of("after@example.com"));
  }

  @Test
  @Order(2)
  void vtctldclientReversesItAndPointsmanSwitchesAgain() {
    cluster.vtctldclient("Reshard", "--workflow", WORKFLOW, "--target-keyspace", "customer", "reversetraffic");
    assertThat(vtctldState()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertThat(switchTraffic().currentState()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(vtctldState()).isEqualTo("All Reads Switched. Writes Switched");
  }

  @Test
  @Order(3)
  void pointsmanReversesAndSwitchesAgain() {
    ActionResult reversed = worker.workflow(ReverseTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, "customer", WORKFLOW) + "-" + (++runs))
        .reverseTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer"));
    assertThat(reversed.currentState()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertThat(vtctldState()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertValid("NOT_SWITCHED");
    assertThat(switchTraffic().currentState()).isEqualTo("All Reads Switched. Writes Switched");
  }

  @Test
  @Order(4)
  void pointsmanCompletesAndNothingIsLeftForVtctldclient() throws Exception {
    ActionResult done = worker.workflow(CompleteMigrationWorkflow.class,
        Pointsman.workflowId(Pointsman.COMPLETE_MIGRATION, "customer", WORKFLOW))
        .complete(CompleteRequest.of(WORKFLOW, "customer"));
    assertThat(done.summary()).isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");
    assertThat(cluster.vtctldclient("Workflow", "--keyspace", "customer", "list")).doesNotContain(WORKFLOW);
    assertThat(cluster.vtctldclient("FindAllShardsInKeyspace", "customer")).doesNotContain("\"0\"");
    assertThat(cluster.query("customer", "select count(*) from customer where customer_id < " + FIRST_ID))
        .containsExactly(List.of("5"));
  }

  private static ActionResult switchTraffic() {
    return worker.workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW) + "-" + (++runs))
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer"));
  }

  private static String vtctldState() {
    return cluster.vtctldclientJson("Reshard", "--workflow", WORKFLOW, "--target-keyspace", "customer", "status",
        "--format", "json").path("traffic_state").asText();
  }

  private static void assertValid(String state) {
    ValidationReport report = worker.validateHere("customer", WORKFLOW);
    assertThat(report.violations()).as(report.describe()).isEmpty();
    assertThat(report.state()).as(report.describe()).isEqualTo(state);
  }
}
