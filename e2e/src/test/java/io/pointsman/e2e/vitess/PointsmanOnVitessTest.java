package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.TopologyReport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pointsman's worker ({@link PointsmanOnVitess}) on a real Vitess 24 cluster with a REPLICA per shard
 * and a vtctldclient-created MoveTables, under write load through vtgate: its Validate and Status
 * read the workflow as vtctld does, and a read-only SwitchTraffic and ReverseTraffic it runs
 * (replica and rdonly reads: routing rules only) leave the state vtctldclient then reports and
 * builds on (vtctldclient switches the writes after it), with no write failed or lost. Validate
 * finds no broken invariant in the states pointsman left; after vtctld's write switch it reads the
 * state right and names the write barrier pointsman would have set (logged).
 */
@Timeout(600)
class PointsmanOnVitessTest {
  private static final Logger log = LoggerFactory.getLogger(PointsmanOnVitessTest.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WORKFLOW = "commerce2customer";
  private static final long FIRST_ID = 200_000;
  private static final String TABLETS = "100:commerce:0 101:commerce:0:replica 200:customer:-80 "
      + "201:customer:-80:replica 300:customer:80- 301:customer:80-:replica";
  private static final List<TabletType> READS = List.of(TabletType.REPLICA, TabletType.RDONLY);

  private static VitessCluster cluster;
  private static PointsmanOnVitess pointsman;

  @BeforeAll
  static void moveTablesCreated() throws Exception {
    cluster = MoveTablesCluster.start(WORKFLOW, Map.of("POINTSMAN_VITESS_TABLETS_SPEC", TABLETS));
    pointsman = PointsmanOnVitess.start(cluster);
  }

  @AfterAll
  static void stop() {
    if (pointsman != null) {
      pointsman.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aReadSwitchAndItsReverseByPointsmanAreWhatVtctldReads() throws Exception {
    WriteLedger ledger = new WriteLedger(cluster, FIRST_ID);
    try (VtgateLoad load = new VtgateLoad(cluster, 50, 8, FIRST_ID)) {
      TopologyReport before = pointsman.validate("customer", WORKFLOW);
      log.info("pointsman Validate before: {} {} {}", before.state(), before.summary(), before.violations());
      assertThat(before.violations()).as(before.summary()).isEmpty();
      assertThat(before.state()).isEqualTo("NOT_SWITCHED");
      assertThat(trafficState(pointsman.status("customer", WORKFLOW))).isEqualTo("Reads Not Switched. Writes Not Switched");

      ActionResult reads = pointsman.switchTraffic("customer", WORKFLOW, READS);
      log.info("pointsman SwitchTraffic reads: {}", reads);
      assertThat(reads.currentState()).isEqualTo("All Reads Switched. Writes Not Switched");
      assertThat(vtctldTrafficState()).isEqualTo("All Reads Switched. Writes Not Switched");
      assertThat(routedTo("customer@replica")).isEqualTo("customer.customer");
      assertThat(routedTo("customer")).isEqualTo("commerce.customer");
      ledger.assertHolds("commerce", load.snapshot().acked());
      TopologyReport afterReads = pointsman.validate("customer", WORKFLOW);
      log.info("pointsman Validate after its reads switch: {} {} {}", afterReads.state(), afterReads.summary(),
          afterReads.violations());
      assertThat(afterReads.violations()).as(afterReads.summary()).isEmpty();
      assertThat(afterReads.state()).isEqualTo("READS_SWITCHED");

      ActionResult back = pointsman.reverseTraffic("customer", WORKFLOW, READS);
      log.info("pointsman ReverseTraffic reads: {}", back);
      assertThat(vtctldTrafficState()).isEqualTo("Reads Not Switched. Writes Not Switched");
      assertThat(routedTo("customer@replica")).isEqualTo("commerce.customer");

      // vtctldclient takes it from there: pointsman's reads switch is a state Vitess builds on
      pointsman.switchTraffic("customer", WORKFLOW, READS);
      cluster.vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "SwitchTraffic",
          "--tablet-types", "primary");
      assertThat(vtctldTrafficState()).isEqualTo("All Reads Switched. Writes Switched");
      assertThat(trafficState(pointsman.status("customer", WORKFLOW))).isEqualTo("All Reads Switched. Writes Switched");
      TopologyReport afterWrites = pointsman.validate("customer", WORKFLOW);
      log.info("pointsman Validate after vtctldclient's writes switch: {} {} {}", afterWrites.state(),
          afterWrites.summary(), afterWrites.violations());
      // its violations are logged, not asserted: the validator expects pointsman's own write barrier
      // on the source primaries (SOURCE_WRITE_BARRIER_MISSING), which vtctld's switch does not write
      assertThat(afterWrites.state()).isEqualTo("ALL_SWITCHED");

      VtgateLoad.LoadReport report = load.stop();
      log.info("load: {}", report.summary());
      assertThat(report.failed()).as(report.summary()).isEmpty();
      ledger.assertHolds("customer", report.acked());
    }
  }

  private static String trafficState(String statusJson) throws Exception {
    return JSON.readTree(statusJson).path("traffic_state").asText();
  }

  private static String vtctldTrafficState() {
    return cluster.vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "status",
        "--format", "json").path("traffic_state").asText();
  }

  private static String routedTo(String fromTable) {
    for (JsonNode rule : cluster.vtctldclientJson("GetRoutingRules").path("rules")) {
      if (rule.path("from_table").asText().equals(fromTable)) {
        return rule.path("to_tables").path(0).asText();
      }
    }
    return "";
  }
}
