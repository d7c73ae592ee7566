package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Switches started at once: on one VReplication workflow they serialize on its named lock and only
 * one switches; on workflows sharing a keyspace the second waits for the keyspace lock, changing
 * nothing meanwhile; on workflows whose locks are disjoint neither waits for the other. The world's
 * MoveTables of commerce to customer overlap in their keyspace locks; warehouse2archive shares none
 * with them. Each test switches workflows of its own, so the tests do not depend on their order.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ConcurrentSwitchesTest {
  private static final Logger log = LoggerFactory.getLogger(ConcurrentSwitchesTest.class);
  private static final String SOURCE = SandboxLayout.COMMERCE;
  private static final String TARGET = SandboxLayout.CUSTOMER;
  private static final String MOVE = SandboxLayout.MOVETABLES_WORKFLOW;
  /** Two more MoveTables commerce → customer, one extra table each. */
  private static final String FIRST = "move_t0001";
  private static final String SECOND = "move_t0002";
  private static final String THIRD = "move_t0003";
  private static final String FOURTH = "move_t0004";
  private static final String FIFTH = "move_t0005";
  private static final String SIXTH = "move_t0006";
  private static final String APART = SandboxLayout.WAREHOUSE_WORKFLOW;
  private static final Set<String> MUTATING = Set.of("switchReads", "stopSourceWrites", "allowSourceWrites",
      "waitForCatchup", "restartStreams", "createReverseVReplication", "restoreReverseVReplication",
      "createJournals", "allowTargetWrites", "changeRouting", "startReverseVReplication", "freezeTargetVReplication");
  /** What a run may do before it holds its locks: read, and queue for them. */
  private static final Set<String> BEFORE_THE_LOCKS = Set.of("buildTrafficSwitcher", "getWorkflowState",
      "acquireLocks");
  private static final Duration WAIT = Duration.ofMinutes(2);

  private static final FaultInjection faults = new FaultInjection();
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables()
      .shape(SandboxShape.DEFAULT.withExtraTables(6).withWarehouse()).faults(faults).resetFaultsAfterEach()
      .createMoveTables()
      .createMoveTables(new MoveTablesSpec(FIRST, SOURCE, TARGET, List.of("t0001"), true))
      .createMoveTables(new MoveTablesSpec(SECOND, SOURCE, TARGET, List.of("t0002"), true))
      .createMoveTables(new MoveTablesSpec(THIRD, SOURCE, TARGET, List.of("t0003"), true))
      .createMoveTables(new MoveTablesSpec(FOURTH, SOURCE, TARGET, List.of("t0004"), true))
      .createMoveTables(new MoveTablesSpec(FIFTH, SOURCE, TARGET, List.of("t0005"), true))
      .createMoveTables(new MoveTablesSpec(SIXTH, SOURCE, TARGET, List.of("t0006"), true))
      .createMoveTables(MoveTablesSpec.warehouse())
      .build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  void twoRunsOfOneSwitchSerializeAndTheLaterOneFindsItSwitchedAndChangesNothing() throws Exception {
    // The first to hold the locks stops before its first check, until the other has read the state
    // (not switched) and queued for the locks: the later run's plan is then stale by construction.
    FaultInjection.Block beforeChecks = faults.blockOnce("canSwitch", When.BEFORE);
    // ... and again once every change is made, still holding the locks, to see the switched world.
    FaultInjection.Block afterChanges = faults.blockOnce("freezeTargetVReplication", When.AFTER);
    SwitchTrafficWorkflow a = startSwitch(MOVE);
    SwitchTrafficWorkflow b = startSwitch(MOVE);
    await().atMost(WAIT).until(beforeChecks::reached);

    // canSwitch runs only under the locks: the run blocked in it holds them
    SwitchTrafficWorkflow holder = fencingToken(a) > 0 ? a : b;
    SwitchTrafficWorkflow waiter = holder == a ? b : a;
    await().atMost(WAIT).until(() -> waitingForLocks(waiter::progress));
    assertThat(run(waiter, "getWorkflowState")).extracting(StepProgress::detail).isEqualTo(NOT_SWITCHED);
    assertThat(WorldSnapshot.locksUnder(world(), namedLockDir(MOVE)))
        .as("the holder's key and the waiter's, queued behind it").hasSize(2);
    beforeChecks.release();

    await().atMost(WAIT).until(afterChanges::reached);
    assertThat(world().workflowState(TARGET, MOVE)).isEqualTo(ALL_SWITCHED);
    WorldSnapshot switched = WorldSnapshot.take(world());
    assertThat(waitingForLocks(waiter::progress)).as("the waiter still waits while the switch holds the locks")
        .isTrue();
    afterChanges.release();

    ActionResult first = result(holder);
    ActionResult second = result(waiter);
    log.info("holder: {} ({} → {}); waiter: {} ({} → {})", first.summary(), first.startState(),
        first.currentState(), second.summary(), second.startState(), second.currentState());
    assertThat(first.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(first.currentState()).isEqualTo(ALL_SWITCHED);
    // The later run decides under the locks, from what it finds there: already switched, nothing to do.
    assertThat(second.summary()).isEqualTo("SwitchTraffic was successful for workflow customer." + MOVE);
    assertThat(second.startState()).isEqualTo(ALL_SWITCHED);
    assertThat(second.currentState()).isEqualTo(ALL_SWITCHED);

    // the holder's acquisitions: its locks, then its write window's shard locks
    java.util.Set<Long> holderTokens = AcquiredTokens.all(holder.progress());
    long waiterToken = fencingToken(waiter);
    assertThat(waiterToken).as("the waiter's locks came after the holder's")
        .isGreaterThan(java.util.Collections.max(holderTokens));
    assertThat(faults.calls()).filteredOn(c -> MUTATING.contains(c.step())).as("every change, all the holder's")
        .isNotEmpty().allMatch(c -> holderTokens.contains(c.token()));
    assertThat(waiter.progress().steps()).extracting(StepProgress::name).doesNotContainAnyElementsOf(MUTATING)
        .doesNotContain("canSwitch");
    assertThat(switched.differencesTo(WorldSnapshot.take(world()))).as("changes after the switch").isEmpty();
    assertSwitchedAndUnlocked(MOVE);
  }

  @Test
  void aRunThatReadTheStateMidSwitchDoesNotRunTheFinishedSwitchAgain() throws Exception {
    // Past changeRouting, before the freeze: writes read as switched but the streams are not frozen,
    // which is also what an interrupted switch leaves, and a run reading it plans to resume the switch.
    FaultInjection.Block beforeFreeze = faults.blockOnce("freezeTargetVReplication", When.BEFORE);
    SwitchTrafficWorkflow holder = startSwitch(FOURTH);
    await().atMost(WAIT).until(beforeFreeze::reached);
    java.util.Set<Long> holderTokens = AcquiredTokens.within(beforeFreeze.locks());

    SwitchTrafficWorkflow waiter = startSwitch(FOURTH);
    await().atMost(WAIT).until(() -> waitingForLocks(waiter::progress));
    assertThat(run(waiter, "getWorkflowState")).extracting(StepProgress::detail).isEqualTo(ALL_SWITCHED);
    assertThat(run(waiter, "checkJournals")).as("found the journal: planned to resume")
        .extracting(StepProgress::detail).isEqualTo("true");
    beforeFreeze.release();

    assertThat(result(holder).currentState()).isEqualTo(ALL_SWITCHED);
    ActionResult second = result(waiter);
    assertThat(second.startState()).isEqualTo(ALL_SWITCHED);
    assertThat(second.currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(faults.calls()).filteredOn(c -> MUTATING.contains(c.step())).as("every change, all the holder's")
        .isNotEmpty().allMatch(c -> holderTokens.contains(c.token()));
    assertThat(waiter.progress().steps()).extracting(StepProgress::name).doesNotContainAnyElementsOf(MUTATING)
        .doesNotContain("gatherPositions");
    assertSwitchedAndUnlocked(FOURTH);
  }

  @Test
  void aCancelQueuedBehindASwitchFindsItSwitchedAndDropsNothing() throws Exception {
    FaultInjection.Block beforeChecks = faults.blockOnce("canSwitch", When.BEFORE);
    FaultInjection.Block afterChanges = faults.blockOnce("freezeTargetVReplication", When.AFTER);
    SwitchTrafficWorkflow switching = startSwitch(FIFTH);
    await().atMost(WAIT).until(beforeChecks::reached);
    // Checked before the locks, while writes are not switched: Cancel may run, and queues.
    CancelMigrationWorkflow cancel = world().workflow(CancelMigrationWorkflow.class,
        E2eChecks.id(Pointsman.CANCEL_MIGRATION, TARGET, FIFTH));
    WorkflowClient.start(cancel::cancel, CancelRequest.of(FIFTH, TARGET));
    await().atMost(WAIT).until(() -> waitingForLocks(cancel::progress));
    beforeChecks.release();

    await().atMost(WAIT).until(afterChanges::reached);
    WorldSnapshot switched = WorldSnapshot.take(world());
    afterChanges.release();
    assertThat(result(switching).currentState()).isEqualTo(ALL_SWITCHED);

    WorkflowFailedException failed = catchThrowableOfType(
        () -> WorkflowStub.fromTyped(cancel).getResult(ActionResult.class), WorkflowFailedException.class);
    assertThat(failed).as("Cancel after the writes were switched").isNotNull();
    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(cause.getOriginalMessage()).contains("because its writes have been switched");
    assertThat(cancel.progress().steps()).extracting(StepProgress::name)
        .doesNotContain("switchReads", "dropTargets", "deleteWorkflow", "deleteRoutingRules");
    for (String shard : world().store().listShards(TARGET)) {
      assertThat(E2eChecks.tables(world(), TARGET, shard)).as("tables of %s/%s", TARGET, shard).contains("t0005");
    }
    assertThat(switched.differencesTo(WorldSnapshot.take(world()))).as("changes after the switch").isEmpty();
    assertSwitchedAndUnlocked(FIFTH);
  }

  @Test
  void aCancelWhoseWorkflowAnotherCancelEndedWhileItWaitedSaysSoAndChangesNothing() throws Exception {
    // The later Cancel has read the workflow (there, not switched: it may go on) and stops there...
    FaultInjection.Block read = faults.blockOnce("getWorkflowState", When.AFTER);
    String id = E2eChecks.id(Pointsman.CANCEL_MIGRATION, TARGET, SIXTH);
    CancelMigrationWorkflow later = world().workflow(CancelMigrationWorkflow.class, id + "-later");
    WorkflowClient.start(later::cancel, CancelRequest.of(SIXTH, TARGET));
    await().atMost(WAIT).until(read::reached);
    // ...while another Cancel of the same workflow runs to its end.
    ActionResult first = world().workflow(CancelMigrationWorkflow.class, id + "-first")
        .cancel(CancelRequest.of(SIXTH, TARGET));
    assertThat(first.currentState()).isEqualTo("cancelled");
    WorldSnapshot cancelled = WorldSnapshot.take(world());
    read.release();

    WorkflowFailedException failed = catchThrowableOfType(
        () -> WorkflowStub.fromTyped(later).getResult(ActionResult.class), WorkflowFailedException.class);
    assertThat(failed).as("a Cancel of a workflow that is gone").isNotNull();
    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getType()).isEqualTo("NOT_FOUND");
    assertThat(cause.getOriginalMessage()).contains("no longer exists").contains("nothing was changed")
        .doesNotContain("Rerun");
    assertThat(later.progress().steps()).extracting(StepProgress::name)
        .doesNotContain("switchReads", "dropTargets", "deleteWorkflow", "deleteRoutingRules");
    assertThat(cancelled.differencesTo(WorldSnapshot.take(world()))).as("changes by the later Cancel").isEmpty();
    assertThat(WorldSnapshot.lockKeys(world())).isEmpty();
  }

  @Test
  void aSwitchSharingAKeyspaceWaitsForItsLockChangingNothingThenBothFinish() throws Exception {
    // Mid-switch: source writes stopped, the commerce and customer locks held.
    FaultInjection.Block held = faults.blockOnce("stopSourceWrites", When.AFTER);
    SwitchTrafficWorkflow holder = startSwitch(FIRST);
    await().atMost(WAIT).until(held::reached);
    java.util.Set<Long> holderTokens = AcquiredTokens.within(held.locks());
    WorldSnapshot midSwitch = WorldSnapshot.take(world());

    SwitchTrafficWorkflow waiter = startSwitch(SECOND);
    await().atMost(WAIT).until(() -> waitingForLocks(waiter::progress)
        && WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir(SOURCE)).size() == 2);
    // Its own workflow lock is free, so it holds it and queues on the first keyspace (they go in name order).
    assertThat(WorldSnapshot.locksUnder(world(), namedLockDir(SECOND))).hasSize(1);
    assertThat(WorldSnapshot.locksUnder(world(), world().paths.keyspaceDir(TARGET))).hasSize(1);
    assertThat(waiter.progress().steps()).extracting(StepProgress::name).isSubsetOf(BEFORE_THE_LOCKS);
    assertThat(waiter.progress().locks()).isEmpty();
    assertThat(faults.calls()).filteredOn(c -> MUTATING.contains(c.step()))
        .allMatch(c -> holderTokens.contains(c.token()));
    assertThat(midSwitch.differencesTo(WorldSnapshot.take(world()))).as("changes while the holder is blocked")
        .isEmpty();
    assertThat(world().workflowState(TARGET, SECOND)).isEqualTo(NOT_SWITCHED);
    held.release();

    assertThat(result(holder).currentState()).isEqualTo(ALL_SWITCHED);
    ActionResult second = result(waiter);
    assertThat(second.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(second.currentState()).isEqualTo(ALL_SWITCHED);
    java.util.Set<Long> waiterTokens = AcquiredTokens.all(waiter.progress());
    assertThat(java.util.Collections.min(waiterTokens)).isGreaterThan(java.util.Collections.max(holderTokens));
    // Serialized: every change of the waiter comes after the last change of the holder.
    List<FaultInjection.Call> changes = faults.calls().stream().filter(c -> MUTATING.contains(c.step())).toList();
    assertThat(changes).allMatch(c -> holderTokens.contains(c.token()) || waiterTokens.contains(c.token()));
    assertThat(changes.subList(changes.indexOf(changes.stream().filter(c -> waiterTokens.contains(c.token()))
        .findFirst().orElseThrow()), changes.size())).allMatch(c -> waiterTokens.contains(c.token()));
    assertSwitchedAndUnlocked(FIRST);
    assertSwitchedAndUnlocked(SECOND);
  }

  @Test
  void switchesWhoseLocksAreDisjointDoNotWaitForEachOther() throws Exception {
    // Mid-switch on commerce → customer: its workflow lock and both keyspace locks held.
    FaultInjection.Block held = faults.blockOnce("stopSourceWrites", When.AFTER);
    SwitchTrafficWorkflow blocked = startSwitch(THIRD);
    await().atMost(WAIT).until(held::reached);
    long blockedToken = held.locks().fencingToken();
    List<String> blockedLocks = WorldSnapshot.lockKeys(world());
    // its workflow lock, both keyspace locks, and the write window's shard locks (commerce/0, customer/-80, 80-)
    assertThat(blockedLocks).hasSize(6);

    SwitchTrafficWorkflow apart = world().workflow(SwitchTrafficWorkflow.class,
        E2eChecks.id(Pointsman.SWITCH_TRAFFIC, SandboxLayout.ARCHIVE, APART));
    ActionResult done = apart.switchTraffic(SwitchTrafficRequest.of(APART, SandboxLayout.ARCHIVE));

    assertThat(done.startState()).isEqualTo(NOT_SWITCHED);
    assertThat(done.currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(fencingToken(apart)).as("locks taken while the other's were held").isGreaterThan(blockedToken);
    assertThat(WorldSnapshot.lockKeys(world())).as("the blocked switch still holds its locks, and only it")
        .containsExactlyInAnyOrderElementsOf(blockedLocks);
    assertValid(SandboxLayout.ARCHIVE, APART, "ALL_SWITCHED");
    held.release();

    assertThat(result(blocked).currentState()).isEqualTo(ALL_SWITCHED);
    assertSwitchedAndUnlocked(THIRD);
    assertValid(SandboxLayout.ARCHIVE, APART, "ALL_SWITCHED");
  }

  private static void assertSwitchedAndUnlocked(String workflow) throws Exception {
    assertValid(TARGET, workflow, "ALL_SWITCHED");
    assertThat(WorldSnapshot.lockKeys(world())).as("locks left behind").isEmpty();
  }

  private static void assertValid(String keyspace, String workflow, String state) {
    log.info("validator on {}: {}", workflow, world().assertDefinedState(keyspace, workflow, state).describe());
  }

  /** Starts a SwitchTraffic of every tablet type of {@code workflow}, without waiting for it. */
  private static SwitchTrafficWorkflow startSwitch(String workflow) {
    SwitchTrafficWorkflow run = world().workflow(SwitchTrafficWorkflow.class,
        E2eChecks.id(Pointsman.SWITCH_TRAFFIC, TARGET, workflow));
    WorkflowClient.start(run::switchTraffic, SwitchTrafficRequest.of(workflow, TARGET));
    return run;
  }

  private static ActionResult result(SwitchTrafficWorkflow wf) {
    return WorkflowStub.fromTyped(wf).getResult(ActionResult.class);
  }

  private static String namedLockDir(String workflow) {
    return world().paths.namedLockDir(Pointsman.namedLock(TARGET, workflow));
  }

  /** It read the state and is inside acquireLocks: queued for the locks, holding none of them yet. */
  private static boolean waitingForLocks(Supplier<Progress> progress) {
    Progress p = progress.get();
    return p.steps().stream().anyMatch(s -> s.name().equals("getWorkflowState") && s.status() == StepStatus.DONE)
        && p.steps().stream().anyMatch(s -> s.name().equals("acquireLocks") && s.status() == StepStatus.RUNNING);
  }

  private static StepProgress run(SwitchTrafficWorkflow wf, String step) {
    return wf.progress().steps().stream().filter(s -> s.name().equals(step)).findFirst().orElseThrow();
  }

  /** acquireLocks reports "3 locks, fencing token N"; 0 while it has not. */
  private static long fencingToken(SwitchTrafficWorkflow wf) {
    return wf.progress().steps().stream()
        .filter(s -> s.name().equals("acquireLocks") && s.status() == StepStatus.DONE).findFirst()
        .map(s -> Long.parseLong(s.detail().substring(s.detail().lastIndexOf(' ') + 1))).orElse(0L);
  }
}
