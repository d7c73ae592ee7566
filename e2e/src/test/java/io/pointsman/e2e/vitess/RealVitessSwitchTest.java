package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.engine.validate.ValidationReport;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole MoveTables cycle on a real Vitess 24 cluster (MariaDB, a REPLICA beside each primary)
 * under a constant write load through vtgate, which runs with {@code --enable-buffer}, handed back
 * and forth between pointsman and vtctldclient: pointsman switches reads, then writes; vtctldclient
 * reverses and switches; pointsman reverses, switches and completes. After each action the test
 * checks that Vitess reports the state the action should leave (traffic state, routing rules,
 * streams, workflows; pointsman's Status reads the same traffic state and its validator finds no
 * violation); that writes sent after the action are acknowledged; and that every write acknowledged
 * so far is in the keyspace the routing now serves, exactly once, on one shard ({@link WriteLedger}).
 *
 * <p>It also records, per action, the writes that failed and the slowest write while the action
 * ran, and fails if any write failed. With vtctldclient doing every action, that is how Vitess
 * itself behaves (measured: no write failed; vtgate held the writes 2.3-2.5 s while a write switch
 * ran): the standard pointsman's actions are held to, against the same {@link Step}s. Last,
 * the oracle itself is shown to fail: rows removed or copied behind vtgate's back are named, and
 * writes vtgate refuses are recorded as failed with its message.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealVitessSwitchTest {
  private static final Logger log = LoggerFactory.getLogger(RealVitessSwitchTest.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WORKFLOW = "commerce2customer";
  private static final String REVERSE = WORKFLOW + "_reverse";
  /** Far above the seeded customers 1-3. */
  private static final long FIRST_ID = 100_000;
  private static final int WRITES_PER_SECOND = 50;
  private static final int WRITERS = 8;
  /** Writes sent after an action and acknowledged before the test checks the ledger: traffic flows again. */
  private static final int WRITES_AFTER_ACTION = 25;
  private static final Duration SETTLE = Duration.ofSeconds(60);
  /** A REPLICA per shard, so that switching replica reads moves reads a tablet serves. */
  private static final String TABLETS = "100:commerce:0 101:commerce:0:replica 200:customer:-80 "
      + "201:customer:-80:replica 300:customer:80- 301:customer:80-:replica";


  /** Who ran an action: the per-action log sets Vitess's own client beside pointsman(). */
  enum Driver { VTCTLDCLIENT, POINTSMAN }

  /**
   * What one action must leave: the traffic state vtctldclient's status reports (empty once the
   * workflow is gone), the keyspace primary writes and replica reads are routed to, and whether the
   * forward streams are frozen (writes switched) and the reverse workflow exists.
   */
  record Step(String name, Optional<String> trafficState, String writesTo, String replicaReadsTo,
      boolean forwardFrozen, boolean reverseExists) {}

  /** What the load saw while one action ran and until writes flowed again after it. */
  record Outcome(Step step, Driver driver, Duration took, long writesSent, List<VtgateLoad.FailedWrite> failed,
      Duration slowestWrite, String ledger) {
    String describe() {
      return String.format("%-22s %-11s took %5d ms; %4d writes sent, %d failed, slowest %5d ms; %s%s", step.name(),
          driver, took.toMillis(), writesSent, failed.size(), slowestWrite.toMillis(), ledger,
          failed.isEmpty() ? "" : "; failed: " + failed);
    }
  }

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> {
    long t0 = System.nanoTime();
    VitessCluster started = MoveTablesCluster.start(WORKFLOW, Map.of("POINTSMAN_VITESS_TABLETS_SPEC", TABLETS));
    log.info("cluster up in {} ms, MoveTables {} created and copied in {} ms in all", started.startup().toMillis(),
        WORKFLOW, Duration.ofNanos(System.nanoTime() - t0).toMillis());
    return started;
  });
  private static VtgateLoad load;
  private static WriteLedger ledger;
  private final List<Outcome> outcomes = new ArrayList<>();
  /** Whether the cycle ended with the workflow completed: the oracle tests after it need that state. */
  private static boolean completed;

  @BeforeAll
  static void ledger() {
    ledger = new WriteLedger(cluster(), FIRST_ID);
  }

  @AfterAll
  static void stopLoad() {
    if (load != null) {
      load.close();
    }
  }

  @Test
  @Order(1)
  void aWholeCycleUnderLoadKeepsEveryAcknowledgedWriteExactlyOnce() throws Exception {
    load = new VtgateLoad(cluster(), WRITES_PER_SECOND, WRITERS, FIRST_ID);
    Step created = new Step("created", Optional.of(NOT_SWITCHED), "commerce", "commerce", false, false);
    run(created, Driver.VTCTLDCLIENT, () -> { });

    // the workflow handed back and forth: pointsman switches, vtctldclient reverses and switches,
    // pointsman reverses, switches and completes; each side must take the other's state as its own
    run(new Step("SwitchTraffic reads", Optional.of(READS_SWITCHED), "commerce", "customer", false, false),
        Driver.POINTSMAN, this::switchReadsWithPointsman);
    run(new Step("SwitchTraffic writes", Optional.of(ALL_SWITCHED), "customer", "customer", true, true),
        Driver.POINTSMAN, this::switchWritesWithPointsman);
    run(new Step("ReverseTraffic", Optional.of(NOT_SWITCHED), "commerce", "commerce", false, true),
        Driver.VTCTLDCLIENT, this::reverseTrafficWithVtctldclient);
    run(new Step("SwitchTraffic", Optional.of(ALL_SWITCHED), "customer", "customer", true, true),
        Driver.VTCTLDCLIENT, this::switchTrafficWithVtctldclient);
    run(new Step("ReverseTraffic", Optional.of(NOT_SWITCHED), "commerce", "commerce", false, true),
        Driver.POINTSMAN, this::reverseTrafficWithPointsman);
    run(new Step("SwitchTraffic", Optional.of(ALL_SWITCHED), "customer", "customer", true, true),
        Driver.POINTSMAN, this::switchTrafficWithPointsman);
    run(new Step("Complete", Optional.empty(), "customer", "customer", false, false),
        Driver.POINTSMAN, this::completeWithPointsman);
    completed = true;

    VtgateLoad.LoadReport report = load.stop();
    WriteLedger.Check last = ledger.assertHolds("customer", report.acked());
    log.info("load across the cycle: {}; {}", report.summary(), last.describe());
    log.info("per action:\n{}", String.join("\n", outcomes.stream().map(Outcome::describe).toList()));
    assertThat(report.acked()).as("the load ran through the cycle")
        .hasSizeGreaterThan(WRITES_AFTER_ACTION * outcomes.size());
    // asserted at the end, so that the log has every action's figures even when one failed writes
    assertThat(outcomes).allSatisfy(o -> assertThat(o.failed()).as(o.describe()).isEmpty());
    // and between the actions' windows
    assertThat(report.failed()).as(report.summary()).isEmpty();
  }

  /**
   * The ledger names what it should: after the cycle (the table served by customer), three rows
   * written through vtgate, then one deleted and one copied onto the other shard straight in
   * MariaDB, and an id that was never written counted as acknowledged.
   */
  @Test
  @Order(2)
  void theLedgerNamesMissingAndDuplicatedIds() throws Exception {
    assumeTrue(completed, "the cycle did not complete: it failed, and this test needs customer to serve the table");
    long kept = 900_001;
    long deleted = 900_002;
    long copied = 900_003;
    long neverWritten = 900_004;
    cluster().execute("", "insert into customer(customer_id, email) values (" + kept + ", '" + VtgateLoad.email(kept)
        + "'), (" + deleted + ", '" + VtgateLoad.email(deleted) + "'), (" + copied + ", '" + VtgateLoad.email(copied) + "')");
    assertThat(ledger.check("customer", List.of(kept, deleted, copied)).holds()).as("written through vtgate").isTrue();

    try {
      for (VitessCluster.Tablet t : cluster().primaries("customer")) {
        try (Connection c = cluster().tabletDba(t); Statement st = c.createStatement()) {
          st.executeUpdate("delete from customer where customer_id = " + deleted);
          // on the shard that has it this is ignored (primary key); on the other it makes a second copy
          st.executeUpdate("insert ignore into customer(customer_id, email) values (" + copied + ", '"
              + VtgateLoad.email(copied) + "')");
        }
      }

      WriteLedger.Check check = ledger.check("customer", List.of(kept, deleted, copied, neverWritten));
      assertThat(check.holds()).isFalse();
      assertThat(check.viaVtgateMissing()).containsExactly(deleted, neverWritten);
      assertThat(check.onShardsMissing()).containsExactly(deleted, neverWritten);
      assertThat(check.viaVtgateDuplicated()).containsOnlyKeys(copied).containsEntry(copied, 2);
      assertThat(check.onSeveralShards()).containsOnlyKeys(copied);
      assertThat(check.onSeveralShards().get(copied)).containsExactlyInAnyOrder("-80", "80-");
      assertThatThrownBy(() -> ledger.assertHolds("customer", List.of(kept, deleted, copied)))
          .isInstanceOf(AssertionError.class).hasMessageContaining(String.valueOf(deleted))
          .hasMessageContaining(String.valueOf(copied));
    } finally {
      // the copies would break the ledger of the next test: gone from every shard
      for (VitessCluster.Tablet t : cluster().primaries("customer")) {
        try (Connection c = cluster().tabletDba(t); Statement st = c.createStatement()) {
          st.executeUpdate("delete from customer where customer_id in (" + kept + ", " + copied + ")");
        }
      }
    }
  }

  /**
   * The load records a refused write as failed, with vtgate's message, and goes on with the next id:
   * with the table renamed away on the primary of {@code 80-} (straight in MariaDB), the writes
   * routed there fail and those routed to {@code -80} are acknowledged.
   */
  @Test
  @Order(3)
  void theLoadRecordsRefusedWritesWithTheirMessages() throws Exception {
    assumeTrue(completed, "the cycle did not complete: it failed, and this test needs customer to serve the table");
    VitessCluster.Tablet high = cluster().tablet(300);
    VtgateLoad.LoadReport report;
    try {
      try (Connection c = cluster().tabletDba(high); Statement st = c.createStatement()) {
        st.execute("rename table customer to customer_away");
      }
      try (VtgateLoad refused = new VtgateLoad(cluster(), WRITES_PER_SECOND, 2, 300_000)) {
        await("writes both acknowledged and refused").atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          VtgateLoad.LoadReport r = refused.snapshot();
          return r.acked().size() >= 5 && r.failed().size() >= 5;
        });
        report = refused.stop();
      }
    } finally {
      try (Connection c = cluster().tabletDba(high); Statement st = c.createStatement()) {
        st.execute("rename table customer_away to customer");
      }
      cluster().vtctldclient("ReloadSchema", high.alias());
    }
    log.info("load with customer gone from 80-: {}", report.summary());
    assertThat(report.failed()).allSatisfy(f -> assertThat(f.message()).contains("customer"));
    List<Long> failedIds = report.failed().stream().map(VtgateLoad.FailedWrite::id).toList();
    assertThat(report.acked()).doesNotContainAnyElementsOf(failedIds);
    assertThat(report.acked().size() + failedIds.size()).as("every write ended one way or the other")
        .isEqualTo(report.count());
    ledger.assertHolds("customer", report.acked());
  }

  /** What a failed step leaves behind for its reader: the records, statements and logs of the moment. */
  @Test
  @Order(4)
  void aFailedStepKeepsTheClusterStateBehind() throws Exception {
    Path kept = VitessDiagnostics.dump(cluster(), "diagnostics test", "customer", WORKFLOW);
    assertThat(Files.readString(kept.resolve("shards.txt"))).contains("== commerce/0", "== customer/-80", "== customer/80-",
        "tablet_controls");
    assertThat(Files.readString(kept.resolve("routing-rules.json"))).contains("rules");
    assertThat(Files.readString(kept.resolve("workflow-status.json"))).as("vtctld's status, or why there is none")
        .isNotBlank();
    assertThat(Files.readString(kept.resolve("primaries.txt"))).contains("zone1-0000000100", "zone1-0000000300",
        "-- triggers");
    assertThat(Files.readString(kept.resolve("vtgate.log"))).isNotBlank();
    assertThat(Files.readString(kept.resolve("vttablet-301.log"))).isNotBlank();
  }

  // ---- the actions: one method each, so that a pointsman variant can sit next to each one

  void switchReadsWithPointsman() {
    pointsman().switchTraffic("customer", WORKFLOW, List.of(TabletType.REPLICA, TabletType.RDONLY));
  }

  void switchWritesWithPointsman() {
    pointsman().switchTraffic("customer", WORKFLOW, List.of(TabletType.PRIMARY));
  }

  void reverseTrafficWithPointsman() {
    pointsman().reverseTraffic("customer", WORKFLOW, SwitchTrafficRequest.ALL_TABLET_TYPES);
  }

  void switchTrafficWithPointsman() {
    pointsman().switchTraffic("customer", WORKFLOW, SwitchTrafficRequest.ALL_TABLET_TYPES);
  }

  void completeWithPointsman() {
    pointsman().complete("customer", WORKFLOW);
  }

  void switchReadsWithVtctldclient() {
    moveTables("SwitchTraffic", "--tablet-types", "rdonly,replica");
  }

  void switchWritesWithVtctldclient() {
    moveTables("SwitchTraffic", "--tablet-types", "primary");
  }

  void reverseTrafficWithVtctldclient() {
    moveTables("ReverseTraffic");
  }

  void switchTrafficWithVtctldclient() {
    moveTables("SwitchTraffic");
  }

  void completeWithVtctldclient() {
    moveTables("Complete");
  }

  private String moveTables(String action, String... flags) {
    List<String> args = new ArrayList<>(List.of("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        action));
    args.addAll(List.of(flags));
    String out = cluster().vtctldclient(args.toArray(String[]::new));
    log.info("vtctldclient {}: {}", String.join(" ", args), out.strip().replace('\n', ' '));
    return out;
  }

  // ---- after each action

  /**
   * Runs the action under the load, checks the state it leaves, waits until writes sent after it
   * are acknowledged, then checks the ledger and records what the load saw.
   */
  private void run(Step step, Driver driver, Runnable action) throws Exception {
    try {
      runChecked(step, driver, action);
    } catch (Exception | AssertionError e) {
      // the cluster's folder goes when it stops: keep what it looked like for whoever reads the failure
      Path kept = VitessDiagnostics.dump(cluster(), step.name(), "customer", WORKFLOW);
      log.error("{} failed; the cluster's state is kept in {}", step.name(), kept);
      e.addSuppressed(new AssertionError("the cluster's state when " + step.name() + " failed is kept in " + kept));
      throw e;
    }
  }

  private void runChecked(Step step, Driver driver, Runnable action) throws Exception {
    long from = load.nextId();
    VtgateLog vtgate = VtgateLog.of(cluster());
    long logMark = vtgate.mark();
    Optional<String> writesLeave = writesLeave(step);
    long t0 = System.nanoTime();
    action.run();
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertState(step);
    if (driver == Driver.POINTSMAN && writesLeave.isPresent()) {
      // pointsman tells vtgate of the denied tables with a SrvVSchema rewrite, so that vtgate ends
      // its buffering when the rules move, not on the next health report (docs/real-vitess.md)
      String declared = VtgateLog.switchingDeclared(writesLeave.get());
      await(step.name() + ": vtgate saw the MoveTables switching writes of " + writesLeave.get())
          .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
          .until(() -> vtgate.since(logMark).stream().anyMatch(l -> l.contains(declared)));
    }
    long after = load.nextId();
    try {
      await(step.name() + ": " + WRITES_AFTER_ACTION + " writes sent after it acknowledged").atMost(SETTLE)
          .pollInterval(Duration.ofMillis(200)).until(() -> load.ackedFrom(after) >= WRITES_AFTER_ACTION);
    } catch (ConditionTimeoutException e) {
      // the writes that failed meanwhile are the evidence: name them
      List<VtgateLoad.FailedWrite> failed = load.snapshot().failed().stream().filter(f -> f.id() >= from).toList();
      throw new AssertionError(e.getMessage() + "; " + load.inFlight() + " writes without an answer; " + failed.size()
          + " writes failed since the action started"
          + (failed.isEmpty() ? "" : ", the first: " + failed.get(0) + ", the last: " + failed.get(failed.size() - 1)), e);
    }
    VtgateLoad.LoadReport seen = load.snapshot();
    long until = load.nextId();
    WriteLedger.Check check = ledger.assertHolds(step.writesTo(), seen.acked());
    List<VtgateLoad.FailedWrite> failed = seen.failed().stream().filter(f -> f.id() >= from && f.id() < until).toList();
    Outcome o = new Outcome(step, driver, took, until - from, failed, load.maxLatency(from, until), check.describe());
    outcomes.add(o);
    log.info("{}", o.describe());
  }

  /** The keyspace a step moves primary writes away from, if it moves them. */
  private static Optional<String> writesLeave(Step step) {
    boolean switchesTraffic = step.name().startsWith("SwitchTraffic") || step.name().startsWith("ReverseTraffic");
    if (step.trafficState().isEmpty() || !switchesTraffic || step.name().equals("SwitchTraffic reads")) {
      return Optional.empty();
    }
    return Optional.of(step.writesTo().equals("customer") ? "commerce" : "customer");
  }

  /** What Vitess reports after the step: traffic state, routing rules, streams and workflows. */
  private void assertState(Step step) throws Exception {
    if (step.trafficState().isPresent()) {
      assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).as(step.name() + " traffic state")
          .isEqualTo(step.trafficState().get());
      assertThat(JSON.readTree(pointsman().status("customer", WORKFLOW)).path("traffic_state").asText())
          .as(step.name() + " traffic state pointsman reads").isEqualTo(step.trafficState().get());
      List<JsonNode> streams = cluster().moveTablesStreams("customer", WORKFLOW);
      assertThat(streams).as(step.name() + " forward streams").hasSize(2).allSatisfy(s -> {
        if (step.forwardFrozen()) {
          assertThat(s.path("state").asText()).isEqualTo("Stopped");
          assertThat(s.path("message").asText()).isEqualTo("FROZEN");
        } else {
          assertThat(s.path("state").asText()).isEqualTo("Running");
        }
      });
      ValidationReport report = pointsman().validateHere("customer", WORKFLOW);
      assertThat(report.violations()).as(step.name() + ": pointsman's validator\n" + report.describe()).isEmpty();
      assertThat(routedTo("customer")).as(step.name() + " primary writes of customer")
          .contains(step.writesTo() + ".customer");
      assertThat(routedTo("customer@replica")).as(step.name() + " replica reads of customer")
          .contains(step.replicaReadsTo() + ".customer");
    } else {
      // completed: nothing of the workflow is left, and the table is the target's own, with no rule
      assertThatThrownBy(() -> cluster().vtctldclient("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
          "status", "--format", "json")).hasMessageContaining("no streams found");
      assertThat(cluster().vtctldclientJson("GetRoutingRules").path("rules")).as("routing rules after Complete").isEmpty();
      assertThat(cluster().workflows("customer")).as("workflows left in customer").isEmpty();
      assertThatThrownBy(() -> pointsman().status("customer", WORKFLOW)).as("pointsman's status after Complete")
          .isInstanceOf(WorkflowFailedException.class);
    }
    assertThat(cluster().workflows("commerce")).as(step.name() + " workflows in commerce")
        .isEqualTo(step.reverseExists() ? List.of(REVERSE) : List.of());
  }

  /** Where vtgate's routing rules send {@code fromTable}; empty without a rule. */
  private static Optional<String> routedTo(String fromTable) {
    for (JsonNode rule : cluster().vtctldclientJson("GetRoutingRules").path("rules")) {
      if (rule.path("from_table").asText().equals(fromTable)) {
        return Optional.of(rule.path("to_tables").path(0).asText());
      }
    }
    return Optional.empty();
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  /** pointsman's worker on the cluster: its Status is read beside vtctld's after each action. */
  private static PointsmanOnVitess pointsman() {
    return VITESS.worker();
  }
}
