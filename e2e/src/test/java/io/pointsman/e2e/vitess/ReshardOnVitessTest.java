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
 * pointsman switches a Reshard workflow ({@code customer/0} into {@code -80,80-}) that vtctldclient
 * created and real VReplication copied, on a real Vitess 24 cluster, and hands it back and forth with
 * vtctldclient.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardOnVitessTest {
  private static final String WORKFLOW = "cust2cust";
  private static VitessCluster cluster;
  private static VitessWorker worker;
  private static int runs;

  @BeforeAll
  static void start() throws Exception {
    cluster = ReshardCluster.start(WORKFLOW);
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
  void pointsmanSwitchesTheReshardAndVtgateServesFromTheNewShards() throws Exception {
    assertThat(switchTraffic().currentState()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(vtctldState()).isEqualTo("All Reads Switched. Writes Switched");
    assertValid("ALL_SWITCHED");
    cluster.execute("customer", "insert into customer(customer_id, email) values (700, 'after@example.com')");
    assertThat(cluster.query("customer", "select count(*) from customer")).containsExactly(List.of("5"));
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
    assertThat(cluster.query("customer", "select count(*) from customer")).containsExactly(List.of("5"));
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
    ValidationReport report = worker.validate("customer", WORKFLOW);
    assertThat(report.violations()).as(report.describe()).isEmpty();
    assertThat(report.state()).as(report.describe()).isEqualTo(state);
  }
}
