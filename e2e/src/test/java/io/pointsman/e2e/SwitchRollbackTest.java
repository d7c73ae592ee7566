package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.KeyValue;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything that goes wrong before the journal is undone: a step failing (before it ran, or after
 * it took effect), the lock lost behind the workflow's back, the workflow cancelled. Each leaves the
 * topology, the streams, the journals and the write barriers exactly as they were, and no lock.
 * One world serves every case, which works only because each one restores it: that is the claim.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SwitchRollbackTest {
  private static final Logger log = LoggerFactory.getLogger(SwitchRollbackTest.class);
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";
  /** The steps before the journal, in the order they run. */
  private static final List<String> ORDER = List.of("switchReads", "readReverseStreams", "planPrimaries",
      "stopSourceWrites", "gatherSourcePositions", "waitForCatchup", "createReverseVReplication", "createJournals");
  /** Those of them that change something, each with a compensation registered before it runs. */
  private static final Set<String> COMPENSATED = Set.of("switchReads", "stopSourceWrites", "waitForCatchup",
      "createReverseVReplication");
  private static final Set<String> MUTATING = Set.of("switchReads", "stopSourceWrites", "allowSourceWrites",
      "waitForCatchup", "restartStreams", "createReverseVReplication", "restoreReverseVReplication",
      "createJournals", "allowTargetWrites", "changeRouting", "startReverseVReplication", "freezeTargetVReplication");

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().faults(faults).createMoveTables().build();

  private WorldSnapshot before;
  private long started;

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @BeforeEach
  void snapshotBefore() throws Exception {
    // the case before restarted the streams; the next switch's canSwitch wants them running
    world().awaitStreamsRunning(TARGET, WORKFLOW);
    assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
    assertThat(world().workflowState(TARGET, WORKFLOW)).isEqualTo(NOT_SWITCHED);
    before = WorldSnapshot.take(world());
    assertThat(before.journals()).isEmpty();
    started = System.nanoTime();
  }

  @AfterEach
  void disarm() {
    faults.reset();
    log.info("case took {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  static Stream<Arguments> injections() {
    return Stream.of(
        Arguments.of("switchReads", When.BEFORE),
        Arguments.of("switchReads", When.AFTER),
        Arguments.of("stopSourceWrites", When.BEFORE),
        Arguments.of("stopSourceWrites", When.AFTER),
        Arguments.of("gatherSourcePositions", When.BEFORE),
        Arguments.of("waitForCatchup", When.BEFORE),
        Arguments.of("waitForCatchup", When.AFTER),
        Arguments.of("planPrimaries", When.BEFORE),
        Arguments.of("readReverseStreams", When.BEFORE),
        Arguments.of("createReverseVReplication", When.BEFORE),
        Arguments.of("createReverseVReplication", When.AFTER),
        Arguments.of("createJournals", When.BEFORE));
  }

  @ParameterizedTest(name = "{0} failing {1}")
  @MethodSource("injections")
  void aStepFailingBeforeTheJournalLeavesEverythingAsItWas(String step, When when) throws Exception {
    faults.failOnce(step, when);
    SwitchTrafficWorkflow wf = newSwitch();

    WorkflowFailedException failed = catchThrowableOfType(() -> wf.switchTraffic(request()),
        WorkflowFailedException.class);

    assertThat(failed).as("SwitchTraffic with a failure injected at %s", step).isNotNull();
    assertThat(failed.getCause()).isInstanceOf(ApplicationFailure.class);
    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getOriginalMessage()).contains(FaultInjection.message(step, when))
        .contains("rolled back");
    assertThat(cause.getType()).isEqualTo("INTERNAL");

    Progress progress = wf.progress();
    List<String> ran = ORDER.subList(0, ORDER.indexOf(step) + 1);
    for (String s : ORDER) {
      List<StepProgress> runs = forwardRuns(progress, s);
      if (!ran.contains(s)) {
        assertThat(runs).as("%s never ran", s).isEmpty();
      } else if (COMPENSATED.contains(s)) {
        assertThat(runs).as("%s undone", s).isNotEmpty().allMatch(r -> r.status() == StepStatus.COMPENSATED);
      } else {
        assertThat(runs).as("%s ran", s).isNotEmpty();
      }
    }
    assertThat(forwardRuns(progress, step)).last().matches(r -> r.status() == StepStatus.FAILED
        || r.status() == StepStatus.COMPENSATED, "failed, then compensated");
    assertThat(compensations(progress)).as("the compensating steps").isNotEmpty()
        .allMatch(r -> r.status() == StepStatus.DONE);
    assertThat(progress.locks()).isEmpty();

    assertEverythingAsBefore();
  }

  @Test
  void aLockLostWhileCatchingUpIsTakenAgainAndEverythingRolledBack() throws Exception {
    FaultInjection.Block block = faults.blockOnce("waitForCatchup", When.BEFORE);
    SwitchTrafficWorkflow wf = newSwitch();
    WorkflowClient.start(wf::switchTraffic, request());
    await().atMost(Duration.ofMinutes(2)).until(block::reached);

    // Behind the workflow's back: revoke the lease of the source keyspace's lock, which takes its key.
    List<KeyValue> keyspaceLocks = WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir("commerce"));
    assertThat(keyspaceLocks).hasSize(1);
    KeyValue lock = keyspaceLocks.get(0);
    LockSet old = block.locks();
    assertThat(old.locks()).anyMatch(t -> t.leaseId() == lock.getLease());
    world().etcd.getLeaseClient().revoke(lock.getLease()).get(30, TimeUnit.SECONDS);
    assertThat(WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir("commerce"))).isEmpty();
    block.release(); // the real waitForCatchup now runs under the revoked lock

    WorkflowFailedException failed = catchThrowableOfType(
        () -> WorkflowStub.fromTyped(wf).getResult(Object.class), WorkflowFailedException.class);
    assertThat(failed).isNotNull();
    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getType()).isEqualTo("LOCK_LOST");
    assertThat(cause.getOriginalMessage()).contains("rolled back under new locks");

    // Nothing was changed under the old token after the lease went: the blocked step failed on its
    // lock check (or was cancelled when holdLocks saw the loss), and no later step ran under it.
    List<FaultInjection.Call> calls = faults.calls();
    int lost = calls.indexOf(calls.stream().filter(c -> c.step().equals("waitForCatchup")).findFirst().orElseThrow());
    List<FaultInjection.Call> afterLoss = calls.subList(lost, calls.size());
    assertThat(afterLoss).filteredOn(c -> c.token() == old.fencingToken())
        .as("calls under the revoked locks").allMatch(c -> !c.succeeded());
    assertThat(calls).noneMatch(c -> Set.of("createReverseVReplication", "createJournals", "allowTargetWrites",
        "changeRouting").contains(c.step()));

    // Re-acquired under a higher fencing token, and compensated under it.
    Progress progress = wf.progress();
    List<StepProgress> acquisitions = progress.steps().stream().filter(s -> s.name().equals("acquireLocks")).toList();
    assertThat(acquisitions).hasSize(2).allMatch(s -> s.status() == StepStatus.DONE);
    List<Long> tokens = AcquiredTokens.of(progress); // with the write window's shard locks
    long first = tokens.get(0);
    long second = tokens.get(1);
    assertThat(first).isEqualTo(old.fencingToken());
    assertThat(second).isGreaterThan(first);
    assertThat(afterLoss).filteredOn(c -> MUTATING.contains(c.step()) && c.succeeded())
        .isNotEmpty().allMatch(c -> c.token() == second);
    for (String s : List.of("switchReads", "stopSourceWrites", "waitForCatchup")) {
      assertThat(forwardRuns(progress, s)).as("%s undone", s).allMatch(r -> r.status() == StepStatus.COMPENSATED);
    }
    assertThat(forwardRuns(progress, "waitForCatchup")).last().extracting(StepProgress::detail).asString()
        .containsIgnoringCase("lock");

    assertEverythingAsBefore();
  }

  @Test
  void aSwitchCancelledBeforeTheJournalEndsCancelledWithEverythingAsItWas() throws Exception {
    // the nasty moment: the barrier is up and the topology denies writes, the step has not returned
    FaultInjection.Block block = faults.blockOnce("stopSourceWrites", When.AFTER);
    SwitchTrafficWorkflow wf = newSwitch();
    E2eChecks.cancelWhileBlocked(world(), wf, request(), block);

    Progress progress = wf.progress();
    for (String s : List.of("switchReads", "stopSourceWrites")) {
      assertThat(forwardRuns(progress, s)).as("%s undone", s).isNotEmpty()
          .allMatch(r -> r.status() == StepStatus.COMPENSATED);
    }
    assertThat(forwardRuns(progress, "gatherSourcePositions")).isEmpty();
    assertEverythingAsBefore();
  }

  private void assertEverythingAsBefore() throws Exception {
    assertThat(before.differencesTo(WorldSnapshot.take(world()))).as("changes left behind").isEmpty();
    assertThat(WorldSnapshot.lockKeys(world())).as("locks left behind").isEmpty();
    assertThat(world().workflowState(TARGET, WORKFLOW)).isEqualTo(NOT_SWITCHED);
    // the oracle of every switch-level test: no invariant broken, no lock key of an ended run left
    world().assertDefinedState(TARGET, WORKFLOW, "NOT_SWITCHED");
  }

  private static SwitchTrafficWorkflow newSwitch() {
    return world().workflow(SwitchTrafficWorkflow.class,
        Pointsman.SWITCH_TRAFFIC + "-" + TARGET + "." + WORKFLOW + "-" + UUID.randomUUID());
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET);
  }

  /** The runs of a step itself, not the compensations that run under the same name (switchReads). */
  private static List<StepProgress> forwardRuns(Progress progress, String step) {
    return progress.steps().stream().filter(s -> s.name().equals(step))
        .filter(s -> s.detail() == null || !s.detail().startsWith("compensation:")).toList();
  }

  private static List<StepProgress> compensations(Progress progress) {
    return progress.steps().stream().filter(s -> s.detail() != null && s.detail().startsWith("compensation:")).toList();
  }
}
