package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario S12, the case of Vitess #20340: an application's transaction holds a moved table while
 * the switch prepares its write barrier, so the barrier's DDL waits on the table's metadata lock
 * (before the write window since the barrier is prepared; in Vitess, inside it). In Vitess
 * the keyspace lock expired during that wait and the switch went on unlocked. Here the locks are
 * renewed by their own keeper whatever a step waits on, so a wait past the lock TTL keeps them and
 * the switch finishes; a wait past the request's timeout rolls the switch back at once, everything
 * as it was, and the application's transaction can still commit and reaches the target.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LongTransactionAtCutoverTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";
  private static final String SOURCE = "commerce";
  private static final String NOT_SWITCHED = "NOT_SWITCHED";
  private static final Duration TTL = Duration.ofSeconds(3);
  /**
   * Each test's load starts at its own customer_id: the world is shared, so a second run from the
   * same id would hit the first's rows, every insert a duplicate key, and verify nothing.
   */
  private static final long KEYS_PER_TEST = 1_000_000;
  private static final AtomicLong nextFirstKey = new AtomicLong(KEYS_PER_TEST);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().faults(faults).createMoveTables().build();

  private LoadWriter load;

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @BeforeEach
  void startFromNotSwitchedUnderLoad() throws Exception {
    world().awaitStreamsRunning(TARGET, WORKFLOW);
    assertDefinedState(NOT_SWITCHED);
    assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
    load = LoadWriter.start(world().router(), LoadOptions.builder().ratePerSecond(20).writers(2)
        .duration(Duration.ofHours(1)).writes(WriteFactory.customerInserts(TARGET, nextFirstKey.getAndAdd(KEYS_PER_TEST))).build());
  }

  @AfterEach
  void stopLoad() {
    faults.reset();
    if (load != null) {
      load.close();
    }
  }

  @Test
  void aTransactionHoldingAMovedTablePastTheLockTtlLeavesTheLocksHeldAndTheSwitchFinishes() throws Exception {
    long heldId = 900_001;
    SwitchTrafficWorkflow wf = newSwitch();
    try (Connection app = world().sandbox.connect(SOURCE, "0")) {
      insertWithoutCommit(app, heldId);
      WorkflowClient.start(wf::switchTraffic, request());
      await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(this::barrierWaitsOnTheTable);
      List<KeyValue> locks = switchLocks();
      assertThat(locks).as("the named lock and both keyspace locks").hasSize(3);

      // Three TTLs: a lease nobody renewed would have lapsed by now, and Vitess's switch went on without it.
      await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(3).plus(Duration.ofSeconds(30)))
          .pollInterval(Duration.ofMillis(250)).until(this::barrierWaitsOnTheTable);
      List<KeyValue> stillHeld = switchLocks();
      assertThat(revisions(stillHeld)).as("the same lock keys, never taken again").isEqualTo(revisions(locks));
      for (KeyValue kv : stillHeld) {
        LeaseTimeToLiveResponse lease = world().etcd.getLeaseClient().timeToLive(kv.getLease(), LeaseOption.DEFAULT)
            .get(30, TimeUnit.SECONDS);
        assertThat(lease.getTTL()).as("lease of %s, renewed", key(kv)).isPositive();
      }
      app.commit();
    }

    ActionResult result = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
    assertThat(result.currentState()).isEqualTo("All Reads Switched. Writes Switched");
    assertThat(wf.progress().steps()).filteredOn(s -> s.name().equals("acquireLocks")).hasSize(1);
    assertDefinedState("ALL_SWITCHED");
    assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
    assertThat(rowsOnTarget(heldId)).as("the transaction committed before the barrier, so it moved").isEqualTo(1);
    assertNoAcknowledgedWriteLost();

    world().workflow(ReverseTrafficWorkflow.class, Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, TARGET, WORKFLOW)
        + "-" + UUID.randomUUID()).reverseTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET));
  }

  @Test
  void aTransactionOutlastingTheTimeoutRollsTheSwitchBackAtOnceAndCanStillCommit() throws Exception {
    long heldId = 900_002;
    Duration timeout = Duration.ofSeconds(3);
    SwitchTrafficWorkflow wf = newSwitch();
    try (Connection app = world().sandbox.connect(SOURCE, "0")) {
      WorldSnapshot before = WorldSnapshot.take(world());
      insertWithoutCommit(app, heldId);

      WorkflowFailedException failed = catchThrowableOfType(
          () -> wf.switchTraffic(request().withTimeout(timeout)), WorkflowFailedException.class);

      assertThat(failed).isNotNull();
      ApplicationFailure cause = (ApplicationFailure) failed.getCause();
      assertThat(cause.getType()).isEqualTo("DEADLINE_EXCEEDED");
      assertThat(cause.getOriginalMessage()).contains("did not end within " + timeout).contains("rolled back");
      // The barrier's triggers are installed before the window (prepareSourceWrites): a table
      // without them yet holds the switch up there, before anything stops writes; one prepared
      // earlier (by a switch back) lets the transaction take the gate's drain row, and the flip in
      // stopSourceWrites waits for it. Either way the step that ran out of the timeout is not tried again.
      assertThat(faults.calls()).filteredOn(c -> c.step().equals("prepareSourceWrites")).hasSize(1);
      assertThat(faults.calls()).filteredOn(c -> c.step().equals("stopSourceWrites")).hasSizeLessThanOrEqualTo(1);
      Progress progress = wf.progress();
      assertThat(progress.steps()).filteredOn(s -> s.name().equals("gatherSourcePositions")).isEmpty();
      assertThat(progress.steps()).filteredOn(s -> s.name().equals("removePreparedSourceBarrier"))
          .isNotEmpty().allMatch(s -> s.status() == StepStatus.DONE);
      assertThat(progress.locks()).isEmpty();
      assertThat(before.differencesTo(WorldSnapshot.take(world()))).as("changes left behind").isEmpty();
      assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
      assertDefinedState(NOT_SWITCHED);

      app.commit();
    }
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
        .until(() -> rowsOnTarget(heldId) == 1);
    assertNoAcknowledgedWriteLost();
  }

  /** The barrier's CREATE TRIGGER (prepareSourceWrites) on the source primary is queued behind a metadata lock. */
  private boolean barrierWaitsOnTheTable() throws SQLException {
    return !E2eChecks.strings(world(), SOURCE, "0", "SELECT ID FROM information_schema.PROCESSLIST"
        + " WHERE STATE = 'Waiting for table metadata lock' AND INFO LIKE 'CREATE TRIGGER%'").isEmpty();
  }

  private static void insertWithoutCommit(Connection app, long id) throws SQLException {
    PrimaryEndpoint source = world().services.primaries().resolve(SOURCE, "0");
    app.setAutoCommit(false);
    try (Statement st = app.createStatement()) {
      st.executeUpdate("INSERT INTO `" + source.dbName() + "`.customer (customer_id, email) VALUES (" + id
          + ", 'held-" + id + "@example.com')");
    }
  }

  private static long rowsOnTarget(long id) throws SQLException {
    long n = 0;
    for (String shard : world().store().listShards(TARGET)) {
      PrimaryEndpoint ep = world().services.primaries().resolve(TARGET, shard);
      n += Long.parseLong(E2eChecks.strings(world(), TARGET, shard, "SELECT COUNT(*) FROM `" + ep.dbName()
          + "`.customer WHERE customer_id = " + id).get(0));
    }
    return n;
  }

  private void assertNoAcknowledgedWriteLost() {
    load.close();
    VerificationReport report = LoadVerifier.forCustomers(world().router()).verify(load.loadLog());
    assertThat(report.acknowledged()).as("writes acknowledged: " + report.summary()).isPositive();
    assertThat(report.missing()).as(report.summary()).isEmpty();
    assertThat(report.duplicated()).as(report.summary()).isEmpty();
    assertThat(report.lostNothing()).as(report.summary()).isTrue();
  }

  private static void assertDefinedState(String state) {
    world().assertDefinedState(TARGET, WORKFLOW, state);
  }

  private static List<KeyValue> switchLocks() throws Exception {
    List<KeyValue> all = new ArrayList<>();
    all.addAll(WorldSnapshot.locksUnder(world(), world().paths.namedLockDir(Pointsman.namedLock(TARGET, WORKFLOW))));
    all.addAll(WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir(SOURCE)));
    all.addAll(WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir(TARGET)));
    return all;
  }

  private static Map<String, Long> revisions(List<KeyValue> locks) {
    return locks.stream().collect(Collectors.toMap(LongTransactionAtCutoverTest::key, KeyValue::getCreateRevision));
  }

  private static String key(KeyValue kv) {
    return kv.getKey().toString(StandardCharsets.UTF_8);
  }

  private static SwitchTrafficWorkflow newSwitch() {
    return world().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WORKFLOW) + "-" + UUID.randomUUID());
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET).withLockTtl(TTL).withMaxLockHold(Duration.ofMinutes(5));
  }
}
