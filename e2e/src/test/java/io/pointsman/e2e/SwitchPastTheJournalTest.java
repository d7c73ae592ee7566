package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After the journal a switch only goes forward: a failure there is tried again until the switch
 * finishes (a rerun resumes from the journal when it was stopped; CancelAfterJournalTest), a
 * cancellation finishes the switch before it ends. The cases alternate between
 * SwitchTraffic and ReverseTraffic on one world, each ending where the next one starts (switched,
 * then back), so they run in order; each checks the state it starts from.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SwitchPastTheJournalTest {
  private static final Logger log = LoggerFactory.getLogger(SwitchPastTheJournalTest.class);
  private static final String WORKFLOW = "commerce2customer";
  private static final String REVERSE = "commerce2customer_reverse";
  private static final String TARGET = "customer";
  private static final String SOURCE = "commerce";
  private static final List<String> TABLES = List.of("corder", "customer");

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().faults(faults).createMoveTables().build();

  private long started;

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @AfterEach
  void disarm() throws Exception {
    faults.reset();
    log.info("case took {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    assertThat(WorldSnapshot.lockKeys(world())).as("locks left behind").isEmpty();
  }

  @Test
  @Order(1)
  void aSwitchFailingAfterTheJournalFinishesItselfAndLosesNoAcknowledgedWrite() throws Exception {
    starting(NOT_SWITCHED);
    LoadWriter load = LoadWriter.start(world().router(), LoadOptions.builder()
        .ratePerSecond(40).writers(4).duration(Duration.ofMinutes(4))
        .writes(WriteFactory.customerInserts("customer", 2_000_000)).build());
    world().onClose(load);
    // writes acknowledged before the switch and after it, so the load spans both
    await().atMost(Duration.ofSeconds(30)).until(() -> load.loadLog().acknowledged() >= 20);
    int journalsBefore = WorldSnapshot.take(world()).journals().size();
    faults.failOnce("changeRouting", When.BEFORE);

    SwitchTrafficWorkflow first = newSwitch();
    ActionResult done = first.switchTraffic(request());

    // Past the journal the switch does not give up: it tries the failed step again and finishes.
    assertThat(done.currentState()).isEqualTo(ALL_SWITCHED);
    List<String> steps = names(first.progress());
    assertThat(first.progress().steps()).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
    assertThat(steps).containsSubsequence("createJournals", "changeRouting", "changeRouting",
        "startReverseVReplication", "freezeTargetVReplication");
    assertThat(first.progress().steps()).filteredOn(s -> s.name().equals("changeRouting"))
        .extracting(StepProgress::status).containsExactly(StepStatus.FAILED, StepStatus.DONE);
    assertThat(WorldSnapshot.take(world()).journals()).as("no second journal").hasSize(journalsBefore + 1);
    assertSwitchedTo(TARGET, SOURCE, REVERSE, WORKFLOW);
    long afterSwitch = load.loadLog().acknowledged();
    await().atMost(Duration.ofSeconds(30)).until(() -> load.loadLog().acknowledged() >= afterSwitch + 20);

    load.close();
    VerificationReport report = LoadVerifier.forCustomers(world().router()).verify(load.loadLog());
    log.info("load across the switch that failed past its journal: {}", report.summary());
    assertThat(report.acknowledged()).as(report.summary()).isGreaterThanOrEqualTo(40);
    assertThat(report.missing()).as(report.summary()).isEmpty();
    assertThat(report.duplicated()).as(report.summary()).isEmpty();
    assertThat(report.lostNothing()).as(report.summary()).isTrue();
  }

  @Test
  @Order(2)
  void aReverseFailingAfterItChangedRoutingFinishesItself() throws Exception {
    starting(ALL_SWITCHED);
    faults.failOnce("changeRouting", When.AFTER);

    ReverseTrafficWorkflow first = newReverse();
    ActionResult done = first.reverseTraffic(request());

    assertThat(done.currentState()).isEqualTo(NOT_SWITCHED);
    assertThat(names(first.progress())).containsSubsequence("createJournals", "changeRouting", "changeRouting",
        "startReverseVReplication", "freezeTargetVReplication");
    assertSwitchedTo(SOURCE, TARGET, WORKFLOW, REVERSE);
  }

  @Test
  @Order(3)
  void aSwitchCancelledAfterTheJournalFinishesTheSwitchAndEndsCancelled() throws Exception {
    starting(NOT_SWITCHED);
    FaultInjection.Block block = faults.blockOnce("allowTargetWrites", When.BEFORE);
    SwitchTrafficWorkflow wf = newSwitch();
    E2eChecks.cancelWhileBlocked(world(), wf, request(), block);
    Progress progress = wf.progress();
    assertThat(progress.steps()).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
    assertThat(names(progress)).containsSubsequence("createJournals", "allowTargetWrites", "allowTargetWrites",
        "changeRouting", "startReverseVReplication", "freezeTargetVReplication", "releaseLocks");
    assertThat(world().workflowState(TARGET, WORKFLOW)).isEqualTo(ALL_SWITCHED);
    assertSwitchedTo(TARGET, SOURCE, REVERSE, WORKFLOW);
  }

  @Test
  @Order(4)
  void aJournalWrittenByAFailedCreateJournalsIsNotRolledBackAndTheSwitchFinishes() throws Exception {
    starting(ALL_SWITCHED);
    int journalsBefore = WorldSnapshot.take(world()).journals().size();
    faults.failOnce("createJournals", When.AFTER);

    ReverseTrafficWorkflow first = newReverse();
    ActionResult done = first.reverseTraffic(request());

    assertThat(done.currentState()).isEqualTo(NOT_SWITCHED);
    Progress run = first.progress();
    assertThat(run.steps()).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
    // The failed createJournals is read back, found written, and the switch goes forward from it.
    assertThat(names(run)).containsSubsequence("createJournals", "checkJournals", "createJournals",
        "allowTargetWrites", "changeRouting", "freezeTargetVReplication");
    assertThat(WorldSnapshot.take(world()).journals()).as("one journal a source")
        .hasSize(journalsBefore + world().store().listShards(TARGET).size());
    assertSwitchedTo(SOURCE, TARGET, WORKFLOW, REVERSE);
  }

  /**
   * Writes go to {@code to}: its primaries take them, {@code from}'s primaries refuse them, the
   * streams out of {@code to} ({@code running}) run and the ones into it ({@code frozen}) are frozen.
   */
  private static void assertSwitchedTo(String to, String from, String running, String frozen) throws Exception {
    for (String shard : world().store().listShards(to)) {
      assertThat(world().services.barrier().deniedTables(primary(to, shard))).as("barrier on %s/%s", to, shard)
          .isEmpty();
      assertThat(streams(to, shard, frozen)).isNotEmpty().allMatch(Stream::isFrozen);
    }
    for (String shard : world().store().listShards(from)) {
      assertThat(world().services.barrier().deniedTables(primary(from, shard))).as("barrier on %s/%s", from, shard)
          .containsExactlyElementsOf(TABLES);
    }
    world().awaitStreamsRunning(from, running);
    assertThat(streams(from, running)).noneMatch(Stream::isFrozen);
    // the oracle of every switch-level test: no invariant broken, no lock key of an ended run left
    world().assertDefinedState(TARGET, WORKFLOW, to.equals(TARGET) ? "ALL_SWITCHED" : "NOT_SWITCHED");
  }

  private void starting(String state) {
    started = System.nanoTime();
    assertThat(world().workflowState(TARGET, WORKFLOW)).as("the state this case starts from").isEqualTo(state);
  }

  private static StepStatus statusOf(Progress progress, String step) {
    return progress.steps().stream().filter(s -> s.name().equals(step)).reduce((a, b) -> b).map(StepProgress::status)
        .orElseThrow(() -> new AssertionError(step + " never ran"));
  }

  private static List<String> names(Progress progress) {
    return progress.steps().stream().map(StepProgress::name).toList();
  }

  private static PrimaryEndpoint primary(String keyspace, String shard) {
    return world().services.primaries().resolve(keyspace, shard);
  }

  private static List<Stream> streams(String keyspace, String workflow) {
    return world().store().listShards(keyspace).stream().flatMap(s -> streams(keyspace, s, workflow).stream()).toList();
  }

  private static List<Stream> streams(String keyspace, String shard, String workflow) {
    return world().services.streams().read(primary(keyspace, shard), workflow);
  }

  private static SwitchTrafficWorkflow newSwitch() {
    return world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC));
  }

  private static ReverseTrafficWorkflow newReverse() {
    return world().workflow(ReverseTrafficWorkflow.class, id(Pointsman.REVERSE_TRAFFIC));
  }

  private static String id(String action) {
    return action + "-" + TARGET + "." + WORKFLOW + "-" + UUID.randomUUID();
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET);
  }
}
