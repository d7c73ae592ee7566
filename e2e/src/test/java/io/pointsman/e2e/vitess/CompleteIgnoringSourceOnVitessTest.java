package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.e2e.WorkflowFailures;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * vtctldclient's {@code MoveTables Complete --ignore-source-keyspace} on a real Vitess 24 cluster:
 * pointsman switched commerce2customer's traffic, then commerce was deleted from the topology
 * ({@code vtctldclient DeleteKeyspace --recursive}). Show and Status still answer, from customer's
 * tablets. Complete without the flag is refused before
 * anything changes, naming it; with it, pointsman completes the workflow through customer's tablets
 * alone: vtctld lists no workflow, no routing rule is left, customer's shards deny nothing, and vtgate
 * reads and writes the moved tables in customer. commerce stays deleted, and its MariaDB keeps its
 * tables and the reverse streams (nothing there was touched).
 */
@Timeout(600)
class CompleteIgnoringSourceOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String REVERSE = WORKFLOW + "_reverse";
  private static final List<String> MOVED = List.of("corder", "customer");

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));

  @Test
  void pointsmanCompletesAWorkflowWhoseSourceKeyspaceWasDeleted() throws Exception {
    assertThat(worker().switchTraffic("customer", WORKFLOW, SwitchTrafficRequest.ALL_TABLET_TYPES).currentState())
        .isEqualTo(ALL_SWITCHED);
    await("reverse streams Running").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster().allStreams("MoveTables", "commerce", REVERSE, 2, "Running"));
    cluster().vtctldclient("DeleteKeyspace", "--recursive", "commerce");
    assertThat(cluster().keyspaces()).containsExactly("customer");
    // what an operator looks at first, as with vtctldclient's show and status: read from customer alone
    JsonNode shown = JSON.readTree(worker().show("customer", WORKFLOW));
    assertThat(shown.path("workflows").path(0).path("name").asText()).isEqualTo(WORKFLOW);
    JsonNode status = JSON.readTree(worker().status("customer", WORKFLOW));
    assertThat(status.path("traffic_state").asText()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(status.path("shard_streams").has("customer/-80")).isTrue();

    ApplicationFailure refused = WorkflowFailures.typedFailure(catchThrowableOfType(
        () -> worker().complete(CompleteRequest.of(WORKFLOW, "customer")), WorkflowFailedException.class));
    assertThat(refused.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(refused.getOriginalMessage()).contains("moves tables from keyspace commerce, which the topology no"
        + " longer has").contains("--ignore-source-keyspace").endsWith("Nothing was changed");
    assertThat(cluster().workflows("customer")).containsExactly(WORKFLOW);

    assertThat(worker().complete(CompleteRequest.of(WORKFLOW, "customer").ignoringSourceKeyspace()).summary())
        .isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");

    assertThat(cluster().workflows("customer")).as("vtctldclient Workflow list in customer").isEmpty();
    assertThat(cluster().vtctldclientJson("GetRoutingRules").path("rules")).as("routing rules").isEmpty();
    for (String shard : List.of("customer/-80", "customer/80-")) {
      assertThat(cluster().vtctldclientJson("GetShard", shard).path("shard").path("tablet_controls"))
          .as("denied tables of " + shard).isEmpty();
    }
    assertThat(worker().lockKeys("customer")).as("customer's locks").isEmpty();
    // vtgate serves the moved tables from customer, reads and writes
    cluster().execute("customer", "insert into customer(customer_id, email) values (50, 'after@example.com')");
    assertThat(cluster().query("customer", "select email from customer where customer_id = 50"))
        .containsExactly(List.of("after@example.com"));
    assertThat(cluster().keyspaces()).as("commerce stays deleted").containsExactly("customer");
    VitessCluster.Tablet commerce = cluster().tablet(100);
    assertThat(cluster().onTablet(commerce, "select table_name from information_schema.tables where table_schema ="
        + " database()")).as("commerce's MariaDB, untouched").containsAll(MOVED);
    assertThat(cluster().onTablet(commerce, "select count(*) from _vt.vreplication where workflow = '" + REVERSE + "'"))
        .as("the reverse streams on commerce's MariaDB, untouched").containsExactly("2");
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
