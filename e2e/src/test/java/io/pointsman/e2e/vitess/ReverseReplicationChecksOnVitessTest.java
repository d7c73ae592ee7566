package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Vitess's checks before a write switch that starts reverse replication (vitessio/vitess#16794), on
 * a real Vitess 24 cluster: the source primary's filtered-replication user must be able to write
 * VReplication's rows, or the reverse streams could not be created or run after the switch, when
 * writes are already on the target. vttablet itself tests the user; pointsman refuses before
 * anything changes, naming the user.
 */
class ReverseReplicationChecksOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));

  @Test
  void aSourcePrimaryWhoseFilteredUserCannotWriteVReplicationRowsRefusesTheSwitchUntilItCan() throws Exception {
    String routingBefore = cluster().vtctldclient("GetRoutingRules");
    // reading and streaming stay allowed, so the forward streams keep running; writing is what is taken
    grants("revoke all privileges on *.* from 'vt_filtered'@'%'",
        "grant select, replication slave, replication client, reload on *.* to 'vt_filtered'@'%'");
    try {
      WorkflowFailedException planned = catchThrowableOfType(() -> switchTraffic(request().withDryRun(true)),
          WorkflowFailedException.class);
      assertThat(planned).as("the dry run is refused as the switch would be").isNotNull();
      assertThat(planned.getCause().getMessage()).contains("primary tablets are not able to fully manage");
      WorkflowFailedException failed = catchThrowableOfType(() -> switchTraffic(request()),
          WorkflowFailedException.class);
      assertThat(failed).as("the switch is refused").isNotNull();
      assertThat(failed.getCause()).isInstanceOf(ApplicationFailure.class);
      ApplicationFailure refusal = (ApplicationFailure) failed.getCause();
      assertThat(refusal.getType()).isEqualTo("FAILED_PRECONDITION");
      assertThat(refusal.getOriginalMessage())
          .contains("cannot switch writes for workflow customer." + WORKFLOW + " with reverse replication")
          .contains("primary tablets are not able to fully manage the reverse vreplication workflow in the commerce"
              + " keyspace")
          .contains("'vt_filtered'")
          .endsWith("nothing was changed");
      assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW))
          .isEqualTo(NOT_SWITCHED);
      assertThat(cluster().vtctldclient("GetRoutingRules")).isEqualTo(routingBefore);
    } finally {
      grants("grant all on *.* to 'vt_filtered'@'%'");
    }
    ActionResult switched = switchTraffic(request());
    assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, "customer");
  }

  private static ActionResult switchTraffic(SwitchTrafficRequest request) {
    return worker().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW) + "-" + UUID.randomUUID())
        .switchTraffic(request);
  }

  /** Grant statements on commerce's primary MariaDB, kept out of its binlog. */
  private static void grants(String... statements) throws Exception {
    VitessCluster.Tablet commerce = cluster().primaries("commerce").get(0);
    try (Connection c = cluster().tabletDba(commerce); Statement st = c.createStatement()) {
      st.execute("set sql_log_bin = 0");
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
