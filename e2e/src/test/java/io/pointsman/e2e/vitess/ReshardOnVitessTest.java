package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * pointsman switches a Reshard workflow ({@code customer/0} into {@code -80,80-}) that vtctldclient
 * created and real VReplication copied, on a real Vitess 24 cluster, and hands it back and forth with
 * vtctldclient, under a constant write load through vtgate that loses no acknowledged write.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardOnVitessTest {
  private static final String WORKFLOW = "cust2cust";
  private static final List<TabletType> ALL = SwitchTrafficRequest.ALL_TABLET_TYPES;

  /** Far above the seeded customers 1-4 and the test's own 700. */
  private static final long FIRST_ID = 100_000;
  private static VtgateLoad load;
  private static WriteLedger ledger;

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> ReshardCluster.start(WORKFLOW));

  @BeforeAll
  static void startTheLoad() {
    ledger = new WriteLedger(cluster(), FIRST_ID);
    load = new VtgateLoad(cluster(), 50, 8, FIRST_ID);
  }

  /**
   * After every action, under 50 inserts/s through vtgate throughout: writes flow again, no write
   * has failed but by vtgate's own doing at a Reshard cut-over ({@link VtgateOwnFailures}), and vtgate
   * returns every acknowledged write exactly once (the primaries are not compared: a Reshard's source
   * and target shards are one keyspace's, and the streams keep copies on both sides by design).
   */
  @AfterEach
  void theLoadLostNothing() throws Exception {
    long after = load.nextId();
    await("writes flow again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> load.ackedFrom(after) >= 10);
    VtgateLoad.LoadReport seen = load.snapshot();
    assertThat(seen.failed()).as(seen.summary())
        .allSatisfy(f -> assertThat(VtgateOwnFailures.atReshardCutOver(f.message())).as(f.message()).isTrue());
    WriteLedger.Check check = ledger.check("customer", seen.acked());
    assertThat(check.vtgateReadError()).as(check.describe()).isEmpty();
    assertThat(check.viaVtgateMissing()).as(check.describe()).isEmpty();
    assertThat(check.viaVtgateDuplicated()).as(check.describe()).isEmpty();
    assertThat(check.wrongEmail()).as(check.describe()).isEmpty();
  }

  @AfterAll
  static void stopTheLoad() {
    if (load != null) {
      load.close();
    }
  }

  @Test
  @Order(1)
  void pointsmanSwitchesTheReshardAndVtgateServesFromTheNewShards() throws Exception {
    assertThat(switchAll().currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(vtctldState()).isEqualTo(ALL_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");
    cluster().execute("customer", "insert into customer(customer_id, email) values (700, 'after@example.com')");
    assertThat(cluster().query("customer", "select email from customer where customer_id = 700"))
        .containsExactly(List.of("after@example.com"));
  }

  @Test
  @Order(2)
  void vtctldclientReversesItAndPointsmanSwitchesAgain() {
    cluster().vtctldclient("Reshard", "--workflow", WORKFLOW, "--target-keyspace", "customer", "reversetraffic");
    assertThat(vtctldState()).isEqualTo(NOT_SWITCHED);
    assertThat(switchAll().currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(vtctldState()).isEqualTo(ALL_SWITCHED);
  }

  @Test
  @Order(3)
  void pointsmanReversesAndSwitchesAgain() {
    ActionResult reversed = worker().reverseTraffic("customer", WORKFLOW, ALL);
    assertThat(reversed.currentState()).isEqualTo(NOT_SWITCHED);
    assertThat(vtctldState()).isEqualTo(NOT_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
    assertThat(switchAll().currentState()).isEqualTo(ALL_SWITCHED);
  }

  @Test
  @Order(4)
  void pointsmanCompletesAndNothingIsLeftForVtctldclient() throws Exception {
    ActionResult done = worker().complete("customer", WORKFLOW);
    assertThat(done.summary())
        .isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");
    assertThat(cluster().vtctldclient("Workflow", "--keyspace", "customer", "list")).doesNotContain(WORKFLOW);
    assertThat(cluster().vtctldclient("FindAllShardsInKeyspace", "customer")).doesNotContain("\"0\"");
    assertThat(cluster().query("customer", "select count(*) from customer where customer_id < " + FIRST_ID))
        .containsExactly(List.of("5"));
  }

  private static ActionResult switchAll() {
    return worker().switchTraffic("customer", WORKFLOW, ALL);
  }

  private static String vtctldState() {
    return cluster().trafficState("Reshard", "customer", WORKFLOW);
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
