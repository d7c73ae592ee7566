package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.e2e.process.Outcome;
import io.pointsman.e2e.process.RouterLoad;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.testing.LogWatch;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.sandbox.cluster.EtcdServerProcess;
import io.pointsman.sandbox.cluster.HashVindex;
import io.pointsman.sandbox.cluster.ServerStop;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 7 at the level of a running SwitchTraffic (S5 and S14 of docs/failure-scenarios.md §2, and
 * primary restarts): the topology server, or a shard's primary, goes down and comes back while the
 * switch is inside its critical section or giving its locks back. Each case must end in a defined state (finished, or rolled back
 * where a rollback is allowed), which the topology validator confirms, with no lock key left,
 * the streams the state calls for running, and every write the router acknowledged meanwhile kept
 * exactly once.
 *
 * <p>The moment of each outage is a fact, not a timing guess: a step is held open by
 * {@link FaultInjection#blockOnce} while the service goes down, and the service comes back only
 * once the failure it causes was observed (a failed lock renewal, a failed step). One world, with
 * an etcd of its own, serves every case; each puts it back to "not switched" for the next.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ServiceRestartMidSwitchTest {
  private static final Logger log = LoggerFactory.getLogger(ServiceRestartMidSwitchTest.class);
  private static final String WORKFLOW = "commerce2customer";
  private static final String REVERSE = WORKFLOW + "_reverse";
  private static final String SOURCE = "commerce";
  private static final String TARGET = "customer";
  /** The renewer's words for a renewal that failed, and for the first that worked again. */
  private static final String RENEWAL_FAILED = "failed, retrying until its TTL runs out";
  private static final String RENEWAL_WORKS_AGAIN = "works again after";
  private static final Set<String> MUTATING = Set.of("switchReads", "stopSourceWrites", "allowSourceWrites",
      "waitForCatchup", "restartStreams", "createReverseVReplication", "restoreReverseVReplication",
      "createJournals", "allowTargetWrites", "changeRouting", "startReverseVReplication", "freezeTargetVReplication");
  private static final Duration LONG = Duration.ofMinutes(2);
  /** Well under the 30 s of lag a switch allows by default. */
  private static final Duration CAUGHT_UP = Duration.ofSeconds(5);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().ownEtcd().switchFaults(faults)
      .createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  private static long nextCustomerId = 5_000_000;
  /** Ids of single rows written straight to a primary, far from any load's. */
  private static long nextProbeId = 900_000_000;
  private long started;
  /** The case's held step and its switch, so that a failed case still lets its switch end. */
  private FaultInjection.Block block;
  private WorkflowStub running;

  @BeforeEach
  void notSwitched() throws Exception {
    started = System.nanoTime();
    awaitRunningAndCaughtUp(TARGET, WORKFLOW);
    assertDefinedState("NOT_SWITCHED");
    assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
    faults.reset(); // forget the calls of the ReverseTraffic that put the world back
    block = null;
    running = null;
  }

  @AfterEach
  void disarm() throws Exception {
    faults.reset();
    // a failed case must not leave the next one without its servers, or with its switch still held
    restartIfDown(world().sandbox::startEtcd);
    restartIfDown(() -> world().sandbox.startPrimary(SOURCE, "0"));
    restartIfDown(() -> world().sandbox.startPrimary(TARGET, "-80"));
    await().atMost(LONG).ignoreExceptions().until(() -> !world().store().listKeyspaces().isEmpty());
    if (block != null) {
      block.release();
    }
    if (running != null) {
      log.info("the case's switch {}", Outcome.of(running));
      // back to "not switched" for the next case, as an operator would
      if (world().validator.validate(TARGET, WORKFLOW).state().equals("ALL_SWITCHED")) {
        awaitRunningAndCaughtUp(SOURCE, REVERSE);
        reverseTraffic();
      }
    }
    log.info("case took {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /**
   * S5: etcd goes away for less than the locks' TTL while the switch holds its write barrier. The
   * renewal fails meanwhile and works again once etcd is back, so the locks are never lost: the
   * switch finishes under the locks it took first, every change fenced with their token.
   */
  @Test
  void etcdDownForLessThanTheLockTtlIsRiddenOutUnderTheSameLocks() throws Exception {
    // a TTL long enough that a renewal fails well before the lease could run out
    SwitchTrafficRequest request = request().withLockTtl(Duration.ofSeconds(45));
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("stopSourceWrites", When.AFTER, request);
      LockSet held = block.locks();

      try (LogWatch renewals = LogWatch.of("io.pointsman.engine.lock.LockRenewer")) {
        world().sandbox.stopEtcd(ServerStop.GRACEFUL);
        assertThat(EtcdServerProcess.isHealthy(world().sandbox.etcdEndpoint())).isFalse();
        await().atMost(LONG).until(() -> renewals.count(RENEWAL_FAILED) > 0);
        world().sandbox.startEtcd();
        await().atMost(LONG).until(() -> renewals.count(RENEWAL_WORKS_AGAIN) > 0);
      }
      block.release();

      ActionResult result = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
      assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
      Progress progress = wf.progress();
      List<StepProgress> acquisitions = runs(progress, "acquireLocks");
      assertThat(acquisitions).as("the locks were taken once and kept").hasSize(1);
      assertThat(AcquiredTokens.of(progress)).containsExactly(held.fencingToken());
      // the reads switch before the write window, under the named and keyspace locks alone
      long beforeWindow = fencingToken(acquisitions.get(0));
      assertThat(faults.calls()).filteredOn(c -> MUTATING.contains(c.step()))
          .isNotEmpty().allMatch(c -> c.token() == (c.step().equals("switchReads") ? beforeWindow
              : held.fencingToken()), "made under the first locks");
      assertSwitchedAndSound(load, "etcd down for less than the lock TTL");
    }
  }

  /**
   * S5: etcd goes away while the next steps need it (their lock checks and topology writes). The
   * first of them fails, Temporal retries it, and once etcd is back the switch ends in a defined
   * state: finished, or, should a step have run out of attempts before the journal, rolled back.
   */
  @Test
  void etcdDownWhileTheNextStepsNeedItEndsInADefinedState() throws Exception {
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("stopSourceWrites", When.AFTER, request());

      world().sandbox.stopEtcd(ServerStop.CRASH);
      int before = faults.calls().size();
      block.release();
      await().atMost(LONG).pollInterval(Duration.ofMillis(100))
          .until(() -> faults.calls().stream().skip(before).anyMatch(c -> !c.succeeded()));
      FaultInjection.Call failed = faults.calls().stream().skip(before).filter(c -> !c.succeeded()).findFirst()
          .orElseThrow();
      log.info("with etcd down, {} failed: {}", failed.step(), failed.outcome());
      world().sandbox.startEtcd();

      Outcome outcome = Outcome.of(WorkflowStub.fromTyped(wf));
      log.info("after etcd came back the switch {}; steps: {}", outcome, steps(wf.progress()));
      assertThat(faults.calls()).as("the failed step ran again").filteredOn(c -> c.step().equals(failed.step()))
          .filteredOn(FaultInjection.Call::succeeded).isNotEmpty();
      if (outcome.switched()) {
        assertThat(outcome.result().currentState()).isEqualTo(ALL_SWITCHED);
        assertSwitchedAndSound(load, "etcd down while steps needed it");
      } else {
        assertThat(outcome.failure()).contains("rolled back");
        assertRolledBackAndSound(load, "etcd down while steps needed it");
      }
    }
  }

  /**
   * etcd stays away for longer than the locks' TTL while the switch waits before catching up: the
   * renewal gives up, holdLocks reports the locks lost, and once etcd is back the switch takes new
   * locks (a higher fencing token) and undoes everything under them. etcd restores leases over a
   * restart, so the old lock keys may outlive the loss the worker declared; the rollback revokes
   * them, and none is left.
   */
  @Test
  void etcdDownForLongerThanTheLockTtlLosesTheLocksAndEverythingIsRolledBackUnderNewOnes() throws Exception {
    WorldSnapshot before = WorldSnapshot.take(world());
    SwitchTrafficRequest request = request().withLockTtl(Duration.ofSeconds(6));
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("waitForCatchup", When.BEFORE, request);
      LockSet old = block.locks();

      world().sandbox.stopEtcd(ServerStop.GRACEFUL);
      awaitLockLossRecorded(running);
      world().sandbox.startEtcd();
      awaitSeenByTheWorkflow(running);
      block.release();

      Outcome outcome = Outcome.of(running);
      log.info("after the lock loss the switch {}; steps: {}", outcome, steps(wf.progress()));
      assertThat(outcome.switched()).as(outcome.toString()).isFalse();
      assertThat(outcome.failure()).startsWith("LOCK_LOST").contains("rolled back under new locks");
      List<StepProgress> acquisitions = runs(wf.progress(), "acquireLocks");
      assertThat(acquisitions).hasSize(2).allMatch(a -> a.status() == StepStatus.DONE);
      List<Long> tokens = AcquiredTokens.of(wf.progress()); // with the write window's shard locks
      assertThat(tokens).hasSize(2);
      assertThat(tokens.get(0)).isEqualTo(old.fencingToken());
      long renewed = tokens.get(1);
      assertThat(renewed).isGreaterThan(old.fencingToken());
      assertThat(faults.calls()).filteredOn(c -> Set.of("allowSourceWrites", "restartStreams").contains(c.step()))
          .as("the undo, under the new locks").isNotEmpty()
          .allMatch(c -> c.succeeded() && c.token() == renewed, "succeeded under the new locks");
      assertThat(faults.calls()).noneMatch(c -> c.step().equals("createJournals"));

      assertThat(before.differencesTo(WorldSnapshot.take(world()))).as("changes left behind").isEmpty();
      assertRolledBackAndSound(load, "etcd down for longer than the lock TTL");
    }
  }

  /**
   * S14: etcd goes away as the finished switch gives its locks back, and stays away until the
   * workflow has ended. releaseLocks cannot revoke the leases and gives up, nor can the workflow
   * read the state it ends in; it still reports the switch it made, and the lock keys vanish on
   * their own within their TTL once etcd is back, nobody renewing them.
   */
  @Test
  void etcdDownAtUnlockLetsTheLocksExpireOnTheirOwnAndTheSwitchIsStillReportedDone() throws Exception {
    Duration ttl = Duration.ofSeconds(10);
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("freezeTargetVReplication", When.AFTER, request().withLockTtl(ttl));

      world().sandbox.stopEtcd(ServerStop.GRACEFUL);
      block.release();
      ActionResult result = running.getResult(3, TimeUnit.MINUTES, ActionResult.class);
      world().sandbox.startEtcd();

      assertThat(result.summary()).contains("was successful");
      assertThat(result.currentState()).startsWith("unknown");
      Progress progress = wf.progress();
      assertThat(runs(progress, "releaseLocks")).last().matches(r -> r.status() == StepStatus.FAILED, "failed")
          .extracting(StepProgress::detail).asString().contains("expire within their TTL");
      assertThat(runs(progress, "getWorkflowState")).last().matches(r -> r.status() == StepStatus.FAILED, "failed");
      // etcd extends restored leases by an election timeout (a second here) on top of their TTL
      await().atMost(ttl.multipliedBy(3)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
          .until(() -> WorldSnapshot.lockKeys(world()).isEmpty());
      assertSwitchedAndSound(load, "etcd down at unlock");
    }
  }

  /**
   * The source primary goes down, cleanly or killed, while its write barrier is up, and comes
   * back. The barrier is part of the server's data, so it holds across the restart and no write
   * lands on the source while writes are denied; the stream runner and the connection pools find
   * the new server, so the switch finishes, its catch-up reading the restarted source's binary log.
   */
  @ParameterizedTest
  @EnumSource(ServerStop.class)
  void theSourcePrimaryRestartedBehindTheWriteBarrierKeepsItAndTheSwitchFinishes(ServerStop how) throws Exception {
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("stopSourceWrites", When.AFTER, request());
      PrimaryEndpoint source = world().services.primaries().resolve(SOURCE, "0");
      SortedSet<String> barrier = world().services.barrier().deniedTables(source);
      assertThat(barrier).as("the write barrier up before the restart").contains("customer", "corder");
      long sourceRows = E2eChecks.rows(world(), SOURCE, "0", "customer");

      world().sandbox.stopPrimary(SOURCE, "0", how);
      world().sandbox.startPrimary(SOURCE, "0");

      // the first use of a pooled connection from before the restart fails, and the pool drops it
      await().atMost(LONG).ignoreExceptionsInstanceOf(PointsmanException.class).untilAsserted(() ->
          assertThat(world().services.barrier().deniedTables(source)).as("the write barrier after the restart")
              .isEqualTo(barrier));
      long probe = nextProbeId++;
      assertThatThrownBy(() -> insertCustomer(SOURCE, "0", probe)).as("a write on the source behind the barrier")
          .isInstanceOf(SQLException.class);
      assertThat(E2eChecks.rows(world(), SOURCE, "0", "customer")).as("rows on the source while writes are denied")
          .isEqualTo(sourceRows);
      block.release();

      ActionResult result = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
      assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
      assertThat(runs(wf.progress(), "acquireLocks")).hasSize(1);
      assertSwitchedAndSound(load, "a " + how + " restart of the source primary");
      awaitReplicatedToSource(nextProbeId++);
    }
  }

  /**
   * Starts a switch and waits until it holds in {@code step}, before or after the step took effect.
   * After stopSourceWrites, the topology denies writes on the source and its write barrier is up,
   * inside the locks: the moment most of the cases break something in.
   */
  private SwitchTrafficWorkflow startHeld(String step, When when, SwitchTrafficRequest request) {
    block = faults.blockOnce(step, when);
    SwitchTrafficWorkflow wf = newSwitch();
    WorkflowClient.start(wf::switchTraffic, request);
    running = WorkflowStub.fromTyped(wf);
    await().atMost(LONG).until(block::reached);
    return wf;
  }

  /** Waits until Temporal recorded holdLocks failing with LOCK_LOST. */
  private static void awaitLockLossRecorded(WorkflowStub stub) {
    await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> indexOfLockLoss(stub) >= 0);
  }

  /**
   * Waits until a workflow task started after the loss was recorded: the workflow has seen it (with
   * a local step running, at the SDK's next renewal of the task), and will not carry on the chain.
   */
  private static void awaitSeenByTheWorkflow(WorkflowStub stub) {
    await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> {
      List<HistoryEvent> events = world().client().fetchHistory(stub.getExecution().getWorkflowId()).getEvents();
      int lost = indexOfLockLoss(events);
      return lost >= 0 && events.subList(lost, events.size()).stream()
          .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
    });
  }

  private static int indexOfLockLoss(WorkflowStub stub) {
    return indexOfLockLoss(world().client().fetchHistory(stub.getExecution().getWorkflowId()).getEvents());
  }

  private static int indexOfLockLoss(List<HistoryEvent> events) {
    for (int i = 0; i < events.size(); i++) {
      HistoryEvent e = events.get(i);
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED && "LOCK_LOST".equals(
          e.getActivityTaskFailedEventAttributes().getFailure().getApplicationFailureInfo().getType())) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A target primary crashes while the switch holds its write barrier on the source, and comes back.
   * The stream into it resumes from the position it committed with its rows, so the catch-up
   * reaches the source position and the switch finishes without losing or doubling a write.
   */
  @Test
  void aTargetPrimaryCrashedMidSwitchResumesItsStreamAndTheSwitchFinishes() throws Exception {
    try (RouterLoad load = RouterLoad.start(world().router(), nextCustomerIds())) {
      SwitchTrafficWorkflow wf = startHeld("stopSourceWrites", When.AFTER, request());

      world().sandbox.stopPrimary(TARGET, "-80", ServerStop.CRASH);
      world().sandbox.startPrimary(TARGET, "-80");
      world().awaitStreamsRunning(TARGET, WORKFLOW);
      block.release();

      ActionResult result = WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
      assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
      assertThat(runs(wf.progress(), "acquireLocks")).hasSize(1);
      assertSwitchedAndSound(load, "a crash of the target primary customer/-80");
    }
  }

  private void assertSwitchedAndSound(RouterLoad load, String what) throws Exception {
    assertSettledAndSound("ALL_SWITCHED", SOURCE, REVERSE, load, what);
  }

  private void assertRolledBackAndSound(RouterLoad load, String what) throws Exception {
    assertSettledAndSound("NOT_SWITCHED", TARGET, WORKFLOW, load, what);
  }

  /**
   * The workflow rests in {@code state} with no lock left, the streams that now carry the writes
   * ({@code workflow} into {@code keyspace}) run and catch up, and the load lost nothing.
   */
  private void assertSettledAndSound(String state, String keyspace, String workflow, RouterLoad load, String what)
      throws Exception {
    assertDefinedState(state);
    assertThat(WorldSnapshot.lockKeys(world())).as("lock keys left behind").isEmpty();
    awaitRunningAndCaughtUp(keyspace, workflow);
    load.awaitMoreAcknowledged();
    load.stopAndVerify(what);
  }

  /**
   * Waits until every stream of the workflow on the keyspace runs and has caught up, by the lag the
   * next switch checks: after an outage a stream may run again yet not have reported for a while.
   */
  private static void awaitRunningAndCaughtUp(String keyspace, String workflow) {
    world().awaitStreamsRunning(keyspace, workflow);
    await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> {
      Instant now = Instant.now();
      for (String shard : world().store().listShards(keyspace)) {
        PrimaryEndpoint primary = world().services.primaries().resolve(keyspace, shard);
        for (Stream st : world().services.streams().read(primary, workflow)) {
          if (st.transactionLag(now).compareTo(CAUGHT_UP) > 0) {
            return false;
          }
        }
      }
      return true;
    });
  }

  private static void assertDefinedState(String state) {
    log.info("validator: {}", world().assertDefinedState(TARGET, WORKFLOW, state).describe());
  }

  /**
   * A row written on the target shard that owns its key reaches the source through the reverse
   * stream: the stream runner writes into the restarted source again.
   */
  private static void awaitReplicatedToSource(long id) throws SQLException {
    String shard = HashVindex.inKeyRange(id, KeyRange.ofShard("-80")) ? "-80" : "80-";
    insertCustomer(TARGET, shard, id);
    await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> !E2eChecks.strings(world(), SOURCE, "0",
        "SELECT customer_id FROM vt_commerce.customer WHERE customer_id = " + id).isEmpty());
  }

  private static void insertCustomer(String keyspace, String shard, long id) throws SQLException {
    try (Connection c = world().sandbox.connect(keyspace, shard); Statement s = c.createStatement()) {
      s.execute("INSERT INTO vt_" + keyspace + ".customer (customer_id, email) VALUES (" + id + ", 'probe')");
    }
  }

  private static void reverseTraffic() {
    ActionResult r = world().workflow(ReverseTrafficWorkflow.class,
        E2eChecks.id(Pointsman.REVERSE_TRAFFIC, TARGET, WORKFLOW)).reverseTraffic(request());
    log.info("traffic reversed: {}", r.currentState());
  }

  private static SwitchTrafficWorkflow newSwitch() {
    return world().workflow(SwitchTrafficWorkflow.class, E2eChecks.id(Pointsman.SWITCH_TRAFFIC, TARGET, WORKFLOW));
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET);
  }

  private static long nextCustomerIds() {
    long first = nextCustomerId;
    nextCustomerId += 1_000_000;
    return first;
  }

  private static List<StepProgress> runs(Progress progress, String step) {
    return progress.steps().stream().filter(s -> s.name().equals(step)).toList();
  }

  private static String steps(Progress progress) {
    return progress.steps().stream().map(s -> s.name() + " " + s.status()).toList().toString();
  }

  /** acquireLocks reports "3 locks, fencing token N". */
  private static long fencingToken(StepProgress acquire) {
    String detail = acquire.detail();
    return Long.parseLong(detail.substring(detail.lastIndexOf(' ') + 1));
  }

  /** Starts a server again that a failed case left down; one that runs refuses, which is fine. */
  private static void restartIfDown(Runnable start) {
    try {
      start.run();
    } catch (PointsmanException alreadyRunning) {
      // it runs: nothing to do
    }
  }
}
