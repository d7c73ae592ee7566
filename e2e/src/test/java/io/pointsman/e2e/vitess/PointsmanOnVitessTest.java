package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.validate.ValidationReport;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * pointsman switches a MoveTables workflow that vtctldclient created and real VReplication copied,
 * on a real Vitess 24 cluster, and hands it back and forth with vtctldclient: each side reads the
 * other's switch as its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PointsmanOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static VitessCluster cluster;
  private static VitessWorker worker;

  @BeforeAll
  static void start() throws Exception {
    cluster = MoveTablesCluster.start(WORKFLOW);
    worker = VitessWorker.start(cluster);
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void pointsmanSwitchesTrafficAndVtctldclientShowsItSwitched() throws Exception {
    ActionResult result = switchTraffic();
    assertThat(result.currentState()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(vtctldState()).isEqualTo("All Reads Switched. Writes Switched");
    assertValid("ALL_SWITCHED");
    // a write through vtgate now lands on the target and is carried back to commerce by the reverse stream
    cluster.execute("customer", "insert into customer(customer_id, email) values (700, 'after@example.com')");
    assertThat(cluster.query("customer", "select email from customer where customer_id = 700"))
        .containsExactly(List.of("after@example.com"));
  }

  @Test
  @Order(2)
  void vtctldclientReversesWhatPointsmanSwitched() {
    cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "reversetraffic");
    assertThat(vtctldState()).isEqualTo("Reads Not Switched. Writes Not Switched");
  }

  @Test
  @Order(3)
  void afterVtctldclientSwitchesPointsmanReversesAndSwitchesAgain() {
    cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "switchtraffic");
    assertThat(vtctldState()).isEqualTo("All Reads Switched. Writes Switched");
    ActionResult reversed = worker.workflow(ReverseTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, "customer", WORKFLOW) + "-1")
        .reverseTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer"));
    assertThat(reversed.currentState()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertThat(vtctldState()).isEqualTo("Reads Not Switched. Writes Not Switched");
    assertValid("NOT_SWITCHED");
    assertThat(switchTraffic().currentState()).isEqualTo("All Reads Switched. Writes Switched");
  }

  @Test
  @Order(4)
  void pointsmanCompletesAndNothingIsLeftForVtctldclient() {
    ActionResult done = worker.workflow(CompleteMigrationWorkflow.class,
        Pointsman.workflowId(Pointsman.COMPLETE_MIGRATION, "customer", WORKFLOW)).complete(CompleteRequest.of(WORKFLOW, "customer"));
    assertThat(done.summary()).isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");
    for (String keyspace : List.of("customer", "commerce")) {
      assertThat(cluster.vtctldclient("Workflow", "--keyspace", keyspace, "list")).doesNotContain(WORKFLOW);
    }
    assertThat(cluster.vtctldclient("GetRoutingRules")).doesNotContain("commerce.customer");
  }

  private static int switches;

  private static ActionResult switchTraffic() {
    return worker.workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW) + "-" + (++switches))
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer"));
  }

  private static String vtctldState() {
    return cluster.vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "status",
        "--format", "json").path("traffic_state").asText();
  }

  private static void assertValid(String state) {
    ValidationReport report = worker.validate("customer", WORKFLOW);
    assertThat(report.violations()).as(report.describe()).isEmpty();
    assertThat(report.state()).as(report.describe()).isEqualTo(state);
  }
}
