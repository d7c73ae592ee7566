package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static io.pointsman.e2e.WorkflowFailures.typedFailure;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import java.sql.SQLException;
import java.time.Duration;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A MoveTables whose reads are mirrored to the target, on a real Vitess 24 cluster. MirrorTraffic
 * also lets the target primaries serve reads of the moved tables while they are denied
 * (allow_reads of the shard's PRIMARY tablet control); Vitess's SwitchTraffic of the reads removes
 * the mirror rules and, none of the workflow's being left, takes that back. The first test holds
 * pointsman's MirrorTraffic to vtctldclient's; the second follows the reads pointsman mirrors
 * through vtgate to the target primaries. The third records what vtctldclient's read switch leaves
 * after its mirroring; after the same mirroring, pointsman's read switch (the fourth) must leave the
 * same shard records and mirror rules, and the target primaries must refuse those reads again
 * (their tablets refreshed, not only the records changed); its dry run must say that the mirroring
 * ends in the words of vtctldclient's. The fifth does the same for the primary traffic and the
 * write switch.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorTrafficOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final List<String> TARGETS = List.of("-80", "80-");
  private static final List<TabletType> READS = List.of(TabletType.REPLICA, TabletType.RDONLY);

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));

  /** Each target shard's tablet controls as vtctldclient's read switch leaves them. */
  private static Map<String, JsonNode> vtctldLeaves;
  private static JsonNode vtctldMirrorRules;
  /** The line of vtctldclient's dry run about the mirror rules its read switch removes. */
  private static List<String> vtctldMirrorLines;

  /**
   * pointsman's MirrorTraffic against vtctldclient's, on the same workflow in the same state: the
   * mirror rules (as a set: vtctld writes them in its map's order), those every cell serves, and the
   * target primaries' tablet controls must be what vtctldclient left, when mirroring the reads and
   * when removing that mirroring with percent 0; while mirrored the target primaries answer a read of
   * a moved table, after the removal they refuse it. A partial set of rules is refused by both.
   */
  @Test
  @Order(0)
  void pointsmansMirrorTrafficLeavesWhatVtctldclientsDoes() throws Exception {
    moveTables("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "10");
    Set<JsonNode> vtctldRules = mirrorRules();
    Map<String, JsonNode> vtctldControls = targetTabletControls();
    assertThat(vtctldRules).as("vtctldclient's mirror rules").hasSize(4);
    moveTables("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "0");
    Set<JsonNode> vtctldRulesAfterRemoval = mirrorRules();
    Map<String, JsonNode> vtctldControlsAfterRemoval = targetTabletControls();

    ActionResult mirrored = worker().mirrorTraffic("customer", WORKFLOW, READS, 10);
    assertThat(mirrored.summary()).isEqualTo("MirrorTraffic was successful for workflow customer." + WORKFLOW);
    assertThat(mirrorRules()).as("mirror rules after pointsman's MirrorTraffic").isEqualTo(vtctldRules);
    assertThat(servedMirrorRules()).as("mirror rules served after pointsman's MirrorTraffic").isEqualTo(vtctldRules);
    assertThat(targetTabletControls()).as("the target shards' tablet controls after pointsman's MirrorTraffic")
        .isEqualTo(vtctldControls);
    assertThat(readsOnTargetPrimaries()).as("customers read on the target primaries mirrored by pointsman")
        .isEqualTo(3);

    worker().mirrorTraffic("customer", WORKFLOW, READS, 0);
    assertThat(mirrorRules()).as("mirror rules after pointsman's removal").isEqualTo(vtctldRulesAfterRemoval);
    assertThat(servedMirrorRules()).as("mirror rules served after pointsman's removal")
        .isEqualTo(vtctldRulesAfterRemoval);
    assertThat(targetTabletControls()).as("the target shards' tablet controls after pointsman's removal")
        .isEqualTo(vtctldControlsAfterRemoval);
    assertThatThrownBy(MirrorTrafficOnVitessTest::readsOnTargetPrimaries)
        .as("a read of customer on the target primaries once pointsman removed the mirroring")
        .hasMessageContaining("denied");

    moveTables("MirrorTraffic", "--tablet-types", "replica", "--percent", "10");
    Set<JsonNode> partial = mirrorRules();
    assertThatThrownBy(() -> moveTables("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "10"))
        .as("vtctldclient's MirrorTraffic over a partial set of rules")
        .hasMessageContaining("wrong number of pre-existing mirror rules");
    ApplicationFailure refused = typedFailure(catchThrowable(() -> worker().mirrorTraffic("customer", WORKFLOW, READS,
        10)));
    assertThat(refused.getType()).isEqualTo(ErrorCode.ALREADY_EXISTS.name());
    assertThat(refused.getOriginalMessage()).startsWith("wrong number of pre-existing mirror rules");
    assertThat(mirrorRules()).as("mirror rules after both refusals").isEqualTo(partial);
    worker().mirrorTraffic("customer", WORKFLOW, List.of(TabletType.REPLICA), 0);
    assertThat(mirrorRules()).as("no mirror rule left for the tests after this one").isEmpty();
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
  }

  /**
   * What vtgate does with the queries pointsman mirrors: the primary traffic mirrored at 100
   * percent, every read of a moved table through vtgate also runs on the target keyspace, and
   * vtgate's query log must show each such run answered there. An operator's SetShardTabletControl
   * on the target shards then clears allow_reads (vtctld does on every update of denied tables) and
   * RefreshStateByShard tells the tablets: the mirrored runs fail there, so the log does show a
   * refusal. pointsman's MirrorTraffic run again, its rules already in place, must set
   * allow_reads again and have the tablets read it before it returns: the next mirrored runs are
   * answered at once.
   */
  @Test
  @Order(1)
  void readsPointsmanMirrorsAreAnsweredByTheTargetPrimaries() throws Exception {
    List<TabletType> primary = List.of(TabletType.PRIMARY);
    worker().mirrorTraffic("customer", WORKFLOW, primary, 100);
    // vtgate applies the rules once its watch of the cell's SrvVSchema brings them
    await().atMost(Duration.ofSeconds(30)).until(() -> logged(read("first"))
        .path("MirrorTargetExecuteTime").asDouble() > 0);
    assertThat(answeredOrLastTry("mirrored")).as("vtgate's log of reads mirrored by pointsman")
        .allSatisfy(MirrorTrafficOnVitessTest::answeredOnTheTarget);

    List<String> denied = new ArrayList<>();
    primaryControl(targetTabletControls().get(TARGETS.get(0))).path("denied_tables")
        .forEach(t -> denied.add(t.asText()));
    assertThat(denied).as("tables the target primaries deny").contains("customer");
    for (String shard : TARGETS) {
      cluster().vtctldclient("SetShardTabletControl", "--denied-tables", String.join(",", denied),
          "customer/" + shard, "primary");
      cluster().vtctldclient("RefreshStateByShard", "customer/" + shard);
    }
    assertThat(targetTabletControls().values()).as("the target primaries' controls after SetShardTabletControl")
        .allSatisfy(controls -> assertThat(primaryControl(controls).path("allow_reads").asBoolean()).isFalse());
    assertThatThrownBy(MirrorTrafficOnVitessTest::readsOnTargetPrimaries)
        .as("a read of customer on the target primaries once allow_reads is cleared").hasMessageContaining("denied");
    // vtgate buffers a query its tablet refuses for denied tables (to it, a MoveTables cutting
    // over), and gives up on a mirrored run 100 ms after the read itself ended: the refusal is
    // logged as "Mirror target query took too long"
    assertThat(readsOnce("refused")).as("vtgate's log of reads mirrored to primaries that deny them")
        .allSatisfy(entry -> assertThat(entry.path("MirrorTargetError").asText()).as("entry " + entry).isNotEmpty());

    worker().mirrorTraffic("customer", WORKFLOW, primary, 100);
    assertThat(answeredOrLastTry("again")).as("vtgate's log of reads mirrored after pointsman's MirrorTraffic again")
        .allSatisfy(MirrorTrafficOnVitessTest::answeredOnTheTarget);

    worker().mirrorTraffic("customer", WORKFLOW, primary, 0);
    assertThat(mirrorRules()).as("no mirror rule left for the tests after this one").isEmpty();
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
  }

  /** Five probe reads named after {@code name}, each once; vtgate's log entry of each. */
  private static List<JsonNode> readsOnce(String name) throws SQLException {
    List<JsonNode> entries = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      entries.add(logged(read(name + "-" + i)));
    }
    return entries;
  }

  /**
   * Five probe reads, each tried again (three tries at most) while its mirrored run failed: a run
   * still going 100 ms after the read ended fails as "took too long", which a slow moment of this
   * machine can cause once, while a target that refuses the reads fails every try. The log entry of
   * each read's last try.
   */
  private static List<JsonNode> answeredOrLastTry(String name) throws SQLException {
    List<JsonNode> last = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      JsonNode entry = null;
      for (int attempt = 1; attempt <= 3 && (entry == null || !entry.path("MirrorTargetError").asText().isEmpty());
          attempt++) {
        entry = logged(read(name + "-" + i + "-" + attempt));
      }
      last.add(entry);
    }
    return last;
  }

  /**
   * One read of a moved table through vtgate, the commerce keyspace selected, carrying a probe
   * comment that names it (made unique here); returns that name.
   */
  private static String read(String name) throws SQLException {
    String probe = name + "-" + UUID.randomUUID();
    cluster().query("commerce", "select " + queries().probe(probe) + " count(*) from customer");
    return probe;
  }

  /** vtgate's log entry of the probe read, once there (vtgate writes its log apart from answering). */
  private static JsonNode logged(String probe) {
    return await().atMost(Duration.ofSeconds(30)).until(() -> queries().entries(probe), e -> !e.isEmpty()).get(0);
  }

  private static void answeredOnTheTarget(JsonNode entry) {
    assertThat(entry.path("Error").asText()).as("the read itself: " + entry).isEmpty();
    assertThat(entry.path("MirrorTargetExecuteTime").asDouble()).as("mirrored: " + entry).isPositive();
    assertThat(entry.path("MirrorTargetError").asText()).as("the mirror target's answer: " + entry).isEmpty();
  }

  @Test
  @Order(2)
  void vtctldclientsReadSwitchEndsTheMirroringAndTheTargetPrimariesReadsOfTheDeniedTables() throws Exception {
    mirrorReads();
    assertThat(readsOnTargetPrimaries()).as("customers read on the target primaries while mirrored").isEqualTo(3);
    vtctldMirrorLines = vtctldDryRunMirrorLines("replica,rdonly");

    moveTables("SwitchTraffic", "--tablet-types", "replica,rdonly");
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(READS_SWITCHED);
    vtctldLeaves = targetTabletControls();
    vtctldMirrorRules = cluster().vtctldclientJson("GetMirrorRules");
    assertThat(vtctldLeaves.values()).as("the target primaries' controls after vtctldclient's read switch")
        .allSatisfy(controls -> assertThat(primaryControl(controls).path("allow_reads").asBoolean()).isFalse());
    assertThatThrownBy(MirrorTrafficOnVitessTest::readsOnTargetPrimaries)
        .as("a read of customer on the target primaries after vtctldclient's read switch")
        .hasMessageContaining("denied");

    moveTables("ReverseTraffic", "--tablet-types", "replica,rdonly");
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(NOT_SWITCHED);
  }

  @Test
  @Order(3)
  void pointsmansReadSwitchLeavesWhatVtctldclientsDoes() throws Exception {
    mirrorReads();
    assertThat(readsOnTargetPrimaries()).as("customers read on the target primaries while mirrored again")
        .isEqualTo(3);

    ActionResult plan = worker().workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-dry-" + UUID.randomUUID())
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer").withTabletTypes(READS).withDryRun(true));
    assertThat(plan.dryRunResults()).as("pointsman's dry run says the mirroring ends, as vtctldclient's does")
        .containsAll(vtctldMirrorLines);

    assertThat(worker().switchTraffic("customer", WORKFLOW, READS).currentState()).isEqualTo(READS_SWITCHED);

    assertThat(targetTabletControls()).as("the target shards' tablet controls after pointsman's read switch")
        .isEqualTo(vtctldLeaves);
    assertThat(cluster().vtctldclientJson("GetMirrorRules")).as("mirror rules after pointsman's read switch")
        .isEqualTo(vtctldMirrorRules);
    assertThatThrownBy(MirrorTrafficOnVitessTest::readsOnTargetPrimaries)
        .as("a read of customer on the target primaries after pointsman's read switch")
        .hasMessageContaining("denied");
    worker().assertValid("customer", WORKFLOW, "READS_SWITCHED");
  }

  /**
   * The same for the writes, reads switched: vtctldclient mirrors the primary traffic, then its write
   * switch (the oracle) removes the primary's mirror rules and the target's PRIMARY control with the
   * moved tables; after ReverseTraffic and the same mirroring, pointsman's write switch must leave
   * the same, and its dry run name the removal as vtctldclient's does.
   */
  @Test
  @Order(4)
  void pointsmansWriteSwitchEndsThePrimaryMirroringAsVtctldclientsDoes() throws Exception {
    mirrorWrites();
    List<String> vtctldLines = vtctldDryRunMirrorLines("primary");
    moveTables("SwitchTraffic", "--tablet-types", "primary");
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(ALL_SWITCHED);
    Map<String, JsonNode> vtctldControls = targetTabletControls();
    JsonNode vtctldRules = cluster().vtctldclientJson("GetMirrorRules");
    moveTables("ReverseTraffic", "--tablet-types", "primary");
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(READS_SWITCHED);

    mirrorWrites();
    ActionResult pointsmanPlan = worker().workflow(SwitchTrafficWorkflow.class, "SwitchTraffic-dry-" + UUID.randomUUID())
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer").withTabletTypes(List.of(TabletType.PRIMARY))
            .withDryRun(true));
    assertThat(pointsmanPlan.dryRunResults()).as("pointsman's dry run of the write switch").containsAll(vtctldLines);
    assertThat(worker().switchTraffic("customer", WORKFLOW, List.of(TabletType.PRIMARY)).currentState())
        .isEqualTo(ALL_SWITCHED);
    assertThat(targetTabletControls()).as("the target shards' tablet controls after pointsman's write switch")
        .isEqualTo(vtctldControls);
    assertThat(cluster().vtctldclientJson("GetMirrorRules")).as("mirror rules after pointsman's write switch")
        .isEqualTo(vtctldRules);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");
  }

  /** The line of vtctldclient's dry run of SwitchTraffic of {@code tabletTypes} about the mirroring it ends. */
  private static List<String> vtctldDryRunMirrorLines(String tabletTypes) {
    JsonNode plan = cluster().vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        "SwitchTraffic", "--tablet-types", tabletTypes, "--dry-run", "--format", "json");
    List<String> lines = new ArrayList<>();
    plan.path("dry_run_results").forEach(line -> {
      if (line.asText().startsWith("Mirroring")) {
        lines.add(line.asText());
      }
    });
    assertThat(lines).as("vtctldclient's dry run: " + plan).hasSize(1);
    return lines;
  }

  /** vtctldclient MirrorTraffic of the primary traffic, reads switched: the target primaries allow reads. */
  private static void mirrorWrites() {
    moveTables("MirrorTraffic", "--tablet-types", "primary", "--percent", "10");
    assertThat(cluster().vtctldclientJson("GetMirrorRules").path("rules")).as("mirror rules").hasSize(2);
    assertThat(targetTabletControls().values()).as("the target primaries' controls while the primary is mirrored")
        .allSatisfy(controls -> assertThat(primaryControl(controls).path("allow_reads").asBoolean()).isTrue());
  }

  /** vtctldclient MirrorTraffic of the replica and rdonly reads: the target primaries then allow reads. */
  private static void mirrorReads() {
    moveTables("MirrorTraffic", "--tablet-types", "replica,rdonly", "--percent", "10");
    assertThat(cluster().vtctldclientJson("GetMirrorRules").path("rules")).as("mirror rules").hasSize(4);
    assertThat(targetTabletControls().values()).as("the target primaries' controls while mirrored")
        .allSatisfy(controls -> assertThat(primaryControl(controls).path("allow_reads").asBoolean()).isTrue());
  }

  /** The global mirror rules, as a set: vtctld saves them in the order of a Go map. */
  private static Set<JsonNode> mirrorRules() {
    return ruleSet(cluster().vtctldclientJson("GetMirrorRules").path("rules"));
  }

  /** The mirror rules the cell's SrvVSchema serves, as a set. */
  private static Set<JsonNode> servedMirrorRules() {
    return ruleSet(cluster().vtctldclientJson("GetSrvVSchema", "zone1").path("mirror_rules").path("rules"));
  }

  private static Set<JsonNode> ruleSet(JsonNode rules) {
    Set<JsonNode> set = new HashSet<>();
    rules.forEach(set::add);
    return set;
  }

  /** The rows of customer on the target primaries, asked through vtgate one shard at a time (no routing rule applies). */
  private static int readsOnTargetPrimaries() throws SQLException {
    int rows = 0;
    for (String shard : TARGETS) {
      rows += Integer.parseInt(cluster().query("customer:" + shard, "select count(*) from customer").get(0).get(0));
    }
    return rows;
  }

  private static Map<String, JsonNode> targetTabletControls() {
    Map<String, JsonNode> controls = new TreeMap<>();
    for (String shard : TARGETS) {
      controls.put(shard, cluster().vtctldclientJson("GetShard", "customer/" + shard).path("shard")
          .path("tablet_controls"));
    }
    return controls;
  }

  private static JsonNode primaryControl(JsonNode controls) {
    for (JsonNode tc : controls) {
      if (tc.path("tablet_type").asText().equals("PRIMARY")) {
        return tc;
      }
    }
    throw new AssertionError("no PRIMARY tablet control in " + controls);
  }

  private static void moveTables(String action, String... flags) {
    List<String> args = new ArrayList<>(List.of("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        action));
    args.addAll(List.of(flags));
    cluster().vtctldclient(args.toArray(String[]::new));
  }

  private static VtgateQueryLog queries() {
    return VtgateQueryLog.of(cluster());
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
