package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.SequenceValue;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SwitchTraffic against mocked activities: the order of its steps, what it undoes when each fails,
 * the journal as the point of no return, a lost lock and a cancellation on either side of it, and a
 * dry run. No etcd, no MySQL: most cases take a tenth of a second, those that wait out a backoff or a
 * workflow task timeout a few seconds.
 */
@Timeout(60)
class TrafficSwitchTest {
  private static final String REPLICA_BACK = "switchReads REPLICA BACKWARD";
  private static final String RDONLY_BACK = "switchReads RDONLY BACKWARD";
  /** What a failure after the reads and before the journal undoes, newest first. */
  private static final SequencePlan SEQUENCES = new SequencePlan(true,
      List.of(new SequenceMetadata("customer", "customer_id", "commerce", "customer_seq")));
  private static final List<String> UNDO_ALL = List.of("restoreReverseVReplication", "restartStreams",
      "allowSourceWrites", "removePreparedSourceBarrier", RDONLY_BACK, REPLICA_BACK);
  /** What a failure after the barrier was prepared and before it was raised undoes, newest first. */
  private static final List<String> UNDO_PREPARED = List.of("removePreparedSourceBarrier", RDONLY_BACK, REPLICA_BACK);
  private static final Set<String> UNDO_STEPS = Set.of("restoreReverseVReplication", "restartStreams",
      "allowSourceWrites", "removePreparedSourceBarrier", REPLICA_BACK, RDONLY_BACK);
  private static final Set<String> MUTATING = Set.of("acquireLocks", "holdLocks", "releaseLocks",
      "switchReads REPLICA FORWARD", "switchReads RDONLY FORWARD", REPLICA_BACK, RDONLY_BACK, "stopSourceWrites",
      "allowSourceWrites", "prepareSourceWrites", "removePreparedSourceBarrier", "waitForCatchup", "restartStreams", "createReverseVReplication",
      "restoreReverseVReplication", "createJournals", "allowTargetWrites", "changeRouting",
      "startReverseVReplication", "freezeTargetVReplication", "dropSources", "dropTargets", "deleteStreams",
      "deleteRoutingRules");

  /** A fresh harness for each test (JUnit makes one instance of the class per test), closed after it. */
  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void aSwitchRunsItsStepsInVitessOrder() {
    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    // only the steps have one order (holdLocks', as the workflow schedules it, is LocalReadsTest's)
    assertThat(h.steps()).containsExactly(
        "buildTrafficSwitcher", "getWorkflowState", "acquireLocks",
        "buildTrafficSwitcher", "getWorkflowState", "canSwitch", "checkReverseReplication", "switchReads REPLICA FORWARD",
        "switchReads RDONLY FORWARD", "planSequences", "prepareSourceWrites", "readReverseStreams", "acquireLocks",
        "checkFailoverTools",
        "planPrimaries", "checkJournals",
        "stopSourceWrites",
        "gatherSourcePositions", "waitForCatchup", "createReverseVReplication", "createJournals",
        "allowTargetWrites", "changeRouting", "startReverseVReplication", "freezeTargetVReplication",
        "releaseLocks", "getWorkflowState");
    assertThat(h.calls().stream().filter("holdLocks"::equals)).hasSize(2);
    assertThat(h.calls()).containsSubsequence("acquireLocks", "holdLocks", "releaseLocks");
  }

  @Test
  void theWriteWindowHoldsTheShardLockOfEverySourceAndTargetShardAndFencesWithThem() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<LockRequest> requests = h.invocations("acquireLocks").map(a -> (LockRequest) a.get(0)).toList();
    assertThat(requests).hasSize(2);
    assertThat(requests.get(0).shards()).isEmpty();
    LockRequest shards = requests.get(1);
    assertThat(shards.namedLock()).isNull();
    assertThat(shards.keyspaces()).isEmpty();
    assertThat(shards.shards()).containsExactly("commerce/0", "customer/-80", "customer/80-");
    // the reads are switched before the window, under the named and keyspace locks alone
    assertThat(h.tokensOf("switchReads REPLICA FORWARD")).containsExactly(1L);
    for (String step : List.of("stopSourceWrites", "waitForCatchup", "createJournals", "changeRouting",
        "freezeTargetVReplication")) {
      LockSet used = (LockSet) h.lastArgument(step);
      assertThat(used.locks()).as(step).extracting(LockToken::resource).containsExactly(
          "workflow customer/commerce2customer", "shard commerce/0", "shard customer/-80", "shard customer/80-");
    }
    // released together, in one revoke, after the last step
    assertThat(h.calls()).containsSubsequence("freezeTargetVReplication", "releaseLocks");
    assertThat(h.calls().stream().filter("releaseLocks"::equals)).hasSize(1);
    assertThat(((LockSet) h.invocations("releaseLocks").toList().get(0).get(0)).locks()).hasSize(4);
  }

  @Test
  void aProblemAFailoverToolSeesRefusesTheWriteWindowBeforeAnythingIsStopped() {
    String problem = "VTOrc 127.0.0.1:16000 reports DeadPrimary on commerce/0 (tablet zone1-0000000100)";
    h.override("checkFailoverTools", inv -> problem);

    Object result = h.switchTraffic(SwitchHarness.request());

    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(failure).hasMessageContaining(problem).hasMessageContaining("Nothing was stopped");
    assertThat(h.invocations("checkFailoverTools").toList()).singleElement()
        .isEqualTo(List.of(List.of("commerce/0", "customer/-80", "customer/80-")));
    assertThat(h.calls()).doesNotContain("stopSourceWrites", "waitForCatchup", "createJournals")
        .endsWith("releaseLocks");
    // the barrier prepared and the reads this run switched before the window are undone
    assertThat(undoCalls()).containsExactlyElementsOf(UNDO_PREPARED);
  }

  static Stream<Arguments> failingSteps() {
    return Stream.of(
        Arguments.of("switchReads REPLICA FORWARD", List.of(REPLICA_BACK)),
        Arguments.of("switchReads RDONLY FORWARD", List.of(RDONLY_BACK, REPLICA_BACK)),
        Arguments.of("prepareSourceWrites", UNDO_PREPARED),
        Arguments.of("readReverseStreams", UNDO_PREPARED),
        Arguments.of("checkJournals", UNDO_PREPARED),
        Arguments.of("stopSourceWrites", UNDO_ALL),
        Arguments.of("gatherSourcePositions", UNDO_ALL),
        Arguments.of("waitForCatchup", UNDO_ALL),
        Arguments.of("createReverseVReplication", UNDO_ALL));
  }

  @ParameterizedTest(name = "{0} fails")
  @MethodSource("failingSteps")
  void aFailedStepBeforeTheJournalIsUndoneNewestFirst(String failing, List<String> undone) {
    h.fail(failing);

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(failure(result)).hasMessageContaining("injected failure of " + failing)
        .hasMessageContaining("Everything the switch changed was rolled back");
    assertThat(undoCalls()).containsExactlyElementsOf(undone);
    assertThat(h.calls()).doesNotContain("createJournals", "allowTargetWrites", "changeRouting")
        .endsWith("releaseLocks");
  }

  /**
   * docs/locks.md §8: a fencing token tells lock grants apart, not executions, so every mutating
   * step gets a fence epoch above every earlier step's, with its low ten bits free for the
   * activity's attempt; the steps of one workflow task (the local chain) share its time and are
   * told apart by their order.
   */
  @Test
  void everyMutatingStepCarriesAFenceEpochAboveTheStepsBeforeIt() {
    h.switchTraffic(SwitchHarness.request());

    List<Map.Entry<String, Long>> epochs = h.stepEpochs();
    assertThat(epochs).extracting(Map.Entry::getKey).contains("stopSourceWrites", "waitForCatchup",
        "createReverseVReplication", "createJournals", "freezeTargetVReplication");
    for (int i = 0; i < epochs.size(); i++) {
      assertThat(epochs.get(i).getValue() & 0x3FF).as("attempt bits of %s", epochs.get(i).getKey()).isZero();
      if (i > 0) {
        assertThat(epochs.get(i).getValue()).as("%s after %s", epochs.get(i).getKey(), epochs.get(i - 1).getKey())
            .isGreaterThan(epochs.get(i - 1).getValue());
      }
    }
  }

  /**
   * Issue 20, primary fencing: the forward steps of the write window get the switcher bound to the
   * primaries planned under the shard locks, and one that finds another primary refuses. Before the
   * journal the switch is undone, and the undos get the switcher as read, unbound, so they reach
   * the server that is primary now (a promoted replica has the replicated barrier to lift).
   */
  @Test
  void aPrimaryChangedBeforeTheJournalIsUndoneOnWhicheverServerIsPrimaryNow() {
    h.override("waitForCatchup", inv -> {
      throw ApplicationFailure.newNonRetryableFailure("the primary of commerce/0 changed during the switch",
          "FAILED_PRECONDITION");
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(failure(result)).hasMessageContaining("the primary of commerce/0 changed")
        .hasMessageContaining("Everything the switch changed was rolled back");
    MigrationInfo planned = SwitchHarness.INFO.withPlannedPrimaries(SwitchHarness.PLANNED_PRIMARIES);
    assertThat(h.firstArguments("planPrimaries")).containsExactly(SwitchHarness.INFO);
    for (String forward : List.of("checkJournals", "stopSourceWrites", "gatherSourcePositions", "waitForCatchup")) {
      assertThat(h.firstArguments(forward)).as(forward).containsExactly(planned);
    }
    assertThat(undoCalls()).containsExactlyElementsOf(UNDO_ALL);
    for (String undo : List.of("restoreReverseVReplication", "restartStreams", "allowSourceWrites")) {
      assertThat(h.firstArguments(undo)).as(undo).containsExactly(SwitchHarness.INFO);
    }
  }

  /** Past the journal a changed primary is not undone: the switch plans again and finishes on the new one. */
  @Test
  void aPrimaryChangedAfterTheJournalIsPlannedAgainAndTheSwitchFinishesOnTheNewPrimary() {
    Map<String, PrimaryTerm> promoted = new java.util.HashMap<>(SwitchHarness.PLANNED_PRIMARIES);
    promoted.put("commerce/0", new PrimaryTerm("zone1-0000000101", "2026-12-04T12:00:00Z"));
    AtomicInteger plans = new AtomicInteger();
    h.override("planPrimaries", inv -> ((MigrationInfo) inv.getArgument(0))
        .withPlannedPrimaries(plans.incrementAndGet() == 1 ? SwitchHarness.PLANNED_PRIMARIES : promoted));
    h.override("startReverseVReplication", inv -> {
      MigrationInfo info = inv.getArgument(0);
      if (!info.plannedPrimaries().equals(promoted)) {
        throw ApplicationFailure.newNonRetryableFailure("the primary of commerce/0 changed during the switch",
            "FAILED_PRECONDITION");
      }
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(undoCalls()).isEmpty();
    assertThat(after("createJournals")).containsExactly("allowTargetWrites", "changeRouting",
        "startReverseVReplication", "planPrimaries", "createJournals", "allowTargetWrites", "changeRouting",
        "startReverseVReplication", "freezeTargetVReplication", "releaseLocks", "getWorkflowState");
    assertThat(h.firstArguments("freezeTargetVReplication")).extracting(i -> ((MigrationInfo) i).plannedPrimaries())
        .containsExactly(promoted);
  }

  @Test
  void aFailedCreateJournalsThatWroteNoJournalIsUndone() {
    h.fail("createJournals");

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(failure(result)).hasMessageContaining("rolled back");
    // the journal is read back (checkJournals answers false) before anything is undone
    assertThat(after("createJournals")).containsExactlyElementsOf(concat(List.of("checkJournals"), UNDO_ALL,
        List.of("releaseLocks")));
  }

  @Test
  void aFailedCreateJournalsThatWroteTheJournalIsPastThePointOfNoReturn() {
    h.failTimes("createJournals", 1);
    AtomicInteger checks = new AtomicInteger();
    h.override("checkJournals", inv -> checks.incrementAndGet() > 1); // the read-back finds the journal

    Object result = h.switchTraffic(SwitchHarness.request());

    // past the journal nothing is undone: the switch goes forward from it and finishes
    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(undoCalls()).isEmpty();
    assertThat(after("createJournals")).containsExactly("checkJournals", "planPrimaries", "createJournals",
        "allowTargetWrites",
        "changeRouting", "startReverseVReplication", "freezeTargetVReplication", "releaseLocks", "getWorkflowState");
  }

  @Test
  void aFailureAfterTheJournalUndoesNothingAndIsTriedAgainUntilTheSwitchFinishes() {
    h.failTimes("allowTargetWrites", 3);

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(undoCalls()).isEmpty();
    // the failed step, then three more passes from the journal on (the first two failing), backing off between
    assertThat(after("createJournals")).containsExactly("allowTargetWrites",
        "planPrimaries", "createJournals", "allowTargetWrites",
        "planPrimaries", "createJournals", "allowTargetWrites",
        "planPrimaries", "createJournals", "allowTargetWrites", "changeRouting", "startReverseVReplication",
        "freezeTargetVReplication", "releaseLocks", "getWorkflowState");
  }

  @Test
  void aRerunAfterTheJournalFinishesFromTheJournal() {
    h.override("checkJournals", inv -> true);

    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);
    assertThat(h.calls()).doesNotContain("stopSourceWrites", "waitForCatchup", "createReverseVReplication")
        .containsSubsequence("checkJournals", "gatherPositions", "createJournals", "allowTargetWrites",
            "changeRouting", "startReverseVReplication", "freezeTargetVReplication", "releaseLocks");
  }

  @Test
  void aLockLostBeforeTheJournalIsReacquiredAndTheSwitchUndoneUnderTheNewLocks() {
    h.override("switchReads RDONLY FORWARD", inv -> {
      h.loseLock();
      h.awaitLost();
      // the step ends only once the workflow saw the loss and asked it to stop
      h.awaitHistory(SwitchHarness.has(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED));
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    ApplicationFailure failure = failure(result);
    assertThat(failure.getType()).isEqualTo("LOCK_LOST");
    assertThat(failure).hasMessageContaining("rolled back under new locks");
    // holdLocks starts asynchronously: where its call lands among the others is timing, not order
    assertThat(after("switchReads RDONLY FORWARD").stream().filter(c -> !c.equals("holdLocks"))).containsExactly(
        "releaseLocks", "acquireLocks", RDONLY_BACK, REPLICA_BACK, "releaseLocks");
    assertThat(h.tokensOf(RDONLY_BACK)).containsExactly(2L);
    assertThat(h.tokensOf(REPLICA_BACK)).containsExactly(2L);
    assertThat(h.calls()).doesNotContain("stopSourceWrites");
  }

  @Test
  void aLockLostInTheLocalChainBeforeTheJournalUndoesEverythingUnderTheNewLocks() {
    h.workflowTaskTimeout(Duration.ofSeconds(1));
    h.override("waitForCatchup", inv -> {
      h.loseLock();
      h.awaitLost();
      h.awaitHistory(taskCompletedAfter(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED));
      throw ApplicationFailure.newNonRetryableFailure("fenced write refused: lock lost", "LOCK_LOST");
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(failure(result).getType()).isEqualTo("LOCK_LOST");
    // holdLocks starts asynchronously: where its call lands among the others is timing, not order
    assertThat(after("waitForCatchup").stream().filter(c -> !c.equals("holdLocks"))).containsExactlyElementsOf(
        concat(List.of("releaseLocks", "acquireLocks", "acquireLocks"), UNDO_ALL, List.of("releaseLocks")));
    assertThat(after("waitForCatchup").stream().filter("holdLocks"::equals)).hasSize(2);
    // locks 1, shard locks 2; after the loss locks 3 and shard locks 4, the undo fenced with both
    assertThat(h.tokensOf("allowSourceWrites")).containsExactly(4L);
    assertThat(h.calls()).doesNotContain("createJournals");
  }

  @Test
  void aLockLostAfterTheJournalIsReacquiredAndTheSwitchFinished() {
    h.workflowTaskTimeout(Duration.ofSeconds(1));
    AtomicInteger routings = new AtomicInteger();
    h.override("changeRouting", inv -> {
      if (routings.incrementAndGet() == 1) {
        h.loseLock();
        h.awaitLost();
        h.awaitHistory(taskCompletedAfter(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED));
        throw ApplicationFailure.newNonRetryableFailure("fenced write refused: lock lost", "LOCK_LOST");
      }
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(undoCalls()).isEmpty();
    assertThat(after("changeRouting").stream().filter("holdLocks"::equals)).hasSize(2);
    assertThat(after("changeRouting").stream().filter(c -> !c.equals("holdLocks"))).containsExactly(
        "releaseLocks", "acquireLocks", "acquireLocks", "planPrimaries", "createJournals", "allowTargetWrites",
        "changeRouting", "startReverseVReplication",
        "freezeTargetVReplication", "releaseLocks", "getWorkflowState");
    assertThat(h.tokensOf("freezeTargetVReplication")).containsExactly(4L);
  }

  /**
   * The loss as a worker that took over after a lost workflow task meets it: the task that ran the
   * chain and revoked the leases at its end never reached the history, so the chain runs again,
   * its fenced step finds the leases gone, and both holdLocks, seeing them gone too, end on their
   * own in the same task. Taking new locks must not cancel them: the cancellation would cross their
   * completions, which the SDK's test server (dev mode) refuses, leaving the workflow stuck.
   */
  @Test
  void aLockLostWhileHoldLocksEndsOnItsOwnIsReacquiredWithoutCancellingIt() {
    AtomicInteger routings = new AtomicInteger();
    h.override("changeRouting", inv -> {
      if (routings.incrementAndGet() == 1) {
        h.endHoldsAsRevoked();
        throw ApplicationFailure.newNonRetryableFailure("fenced write refused: lock lost", "LOCK_LOST");
      }
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(undoCalls()).isEmpty();
    assertThat(after("changeRouting").stream().filter(c -> !c.equals("holdLocks"))).containsExactly(
        "releaseLocks", "acquireLocks", "acquireLocks", "planPrimaries", "createJournals", "allowTargetWrites",
        "changeRouting", "startReverseVReplication",
        "freezeTargetVReplication", "releaseLocks", "getWorkflowState");
    assertThat(h.history()).noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED);
  }

  /**
   * The prepared barrier's step may take the request's timeout (each statement's wait for
   * transactions) and its own work on top: a thousand tables' triggers take seconds with nothing in
   * their way. The step reads this start-to-close to fail with its own message first.
   */
  @Test
  void thePreparedBarrierMayTakeTheTimeoutAndItsWorkOnTop() {
    AtomicReference<Duration> startToClose = new AtomicReference<>();
    h.override("prepareSourceWrites", inv -> {
      startToClose.set(Activity.getExecutionContext().getInfo().getStartToCloseTimeout());
      return h.proceed(inv);
    });

    Object result = h.switchTraffic(SwitchHarness.request().withTimeout(Duration.ofSeconds(7)));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(startToClose.get()).isEqualTo(Duration.ofSeconds(7).plus(SwitchActivities.PREPARE_WORK));
  }

  @Test
  void aCancellationBeforeTheJournalUndoesTheSwitch() {
    h.override("switchReads RDONLY FORWARD", inv -> {
      h.cancelWorkflow();
      h.awaitHistory(SwitchHarness.has(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED));
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(cause(result)).isInstanceOf(CanceledFailure.class);
    assertThat(after("switchReads RDONLY FORWARD")).containsExactly(RDONLY_BACK, REPLICA_BACK, "releaseLocks");
  }

  @Test
  void aCancellationAfterTheJournalFinishesTheSwitch() {
    // the cancellation reaches the workflow while changeRouting, a local step, runs (taskCompletedAfter)
    h.workflowTaskTimeout(Duration.ofSeconds(1));
    AtomicInteger routings = new AtomicInteger();
    h.override("changeRouting", inv -> {
      if (routings.incrementAndGet() == 1) {
        h.cancelWorkflow();
        h.awaitHistory(taskCompletedAfter(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED));
      }
      return null;
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(cause(result)).isInstanceOf(CanceledFailure.class);
    assertThat(undoCalls()).isEmpty();
    assertThat(after("changeRouting")).containsExactly("planPrimaries", "createJournals", "allowTargetWrites",
        "changeRouting", "startReverseVReplication", "freezeTargetVReplication", "releaseLocks");
  }

  @Test
  void aDryRunOnlyReads() {
    Object result = h.switchTraffic(SwitchHarness.request().withDryRun(true));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(((ActionResult) result).dryRunResults()).contains("Lock workflow customer/commerce2customer",
        "Create journal entries on source databases (migration id 42)")
        .containsSubsequence("Lock shard commerce/0", "Lock shard customer/-80", "Lock shard customer/80-",
            "Plan the primaries of shards [commerce/0, customer/-80, customer/80-]: every change goes to them only",
            "Stop writes on keyspace commerce for tables [customer]: [keyspace:commerce;shard:0;position:MySQL56/a:1-10]",
            "Unlock shard customer/80-", "Unlock shard customer/-80", "Unlock shard commerce/0",
            "Unlock keyspace customer");
    assertThat(h.calls()).containsExactly("buildTrafficSwitcher", "getWorkflowState", "checkReverseReplication",
        "gatherPositions", "planSequences").doesNotContainAnyElementsOf(MUTATING);
  }

  /** docs/sequences.md §2: the sequence steps sit where Vitess runs them, around the reverse streams. */
  @Test
  void aSwitchWithSequencesResetsAndInitializesThemInVitessOrder() {
    h.override("planSequences", inv -> SEQUENCES);

    Object result = h.switchTraffic(SwitchHarness.request().withInitializeTargetSequences(true));

    assertThat(result).isInstanceOf(ActionResult.class);
    assertThat(h.calls()).containsSubsequence("planSequences", "acquireLocks", "stopSourceWrites", "waitForCatchup",
        "resetSequences", "createReverseVReplication", "initializeTargetSequences", "createJournals",
        "allowTargetWrites");
    assertThat(h.invocations("planSequences")).containsExactly(List.of(SwitchHarness.INFO, true));
    assertThat(h.invocations("initializeTargetSequences").findFirst().orElseThrow().get(1)).isEqualTo(SEQUENCES);
  }

  /** Nothing to undo for the sequences themselves: a sequence moved up skips ids, never repeats one. */
  @Test
  void aFailedSequenceInitializationRollsTheSwitchBackWithoutTheJournal() {
    h.override("planSequences", inv -> SEQUENCES);
    h.fail("initializeTargetSequences");

    Object result = h.switchTraffic(SwitchHarness.request().withInitializeTargetSequences(true));

    assertThat(failure(result)).hasMessageContaining("injected failure of initializeTargetSequences")
        .hasMessageContaining("Everything the switch changed was rolled back");
    assertThat(undoCalls()).containsExactlyElementsOf(UNDO_ALL);
    assertThat(h.calls()).doesNotContain("createJournals", "allowTargetWrites", "changeRouting");
  }

  @Test
  void aDryRunListsTheSequencesItWouldInitializeWithTheirValues() {
    h.override("planSequences", inv -> SEQUENCES);
    h.override("readSequenceValues", inv -> List.of(new SequenceValue("commerce", "customer_seq", 1, 501)));

    Object result = h.switchTraffic(SwitchHarness.request().withInitializeTargetSequences(true).withDryRun(true));

    assertThat(((ActionResult) result).dryRunResults()).containsSubsequence(
        "Wait for vreplication on stopped streams to catch up for up to 30s",
        "The sequence caches will be reset on the source since sequence tables are being moved",
        "Create reverse vreplication workflow commerce2customer_reverse",
        "The following sequence backing tables used by tables being moved will be initialized:",
        "\tBacking table: customer_seq, current value 1, new value 501",
        "Create journal entries on source databases (migration id 42)");
    assertThat(h.calls()).doesNotContainAnyElementsOf(MUTATING).doesNotContain("resetSequences",
        "initializeTargetSequences");
  }

  /** vitessio/vitess#16794: asked before anything changes, and a problem refuses the whole switch. */
  @Test
  void aSwitchWhoseReverseReplicationCouldNotRunIsRefusedBeforeTheReadsSwitch() {
    h.override("checkReverseReplication", inv -> "no tablets were available to stream from in the customer keyspace");

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(failure(result)).hasMessageContaining("cannot switch writes for workflow customer.commerce2customer"
        + " with reverse replication: no tablets were available to stream from in the customer keyspace; nothing was"
        + " changed");
    assertThat(failure(result).getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(h.calls()).doesNotContain("switchReads REPLICA FORWARD", "switchReads RDONLY FORWARD",
        "stopSourceWrites").endsWith("releaseLocks");
  }

  @Test
  void aDryRunOfASwitchThatWouldBeRefusedIsRefusedTheSameWay() {
    h.override("checkReverseReplication", inv -> "no tablets were available to stream from in the customer keyspace");

    Object result = h.switchTraffic(SwitchHarness.request().withDryRun(true));

    assertThat(failure(result)).hasMessageContaining("cannot switch writes for workflow customer.commerce2customer"
        + " with reverse replication");
    assertThat(h.calls()).doesNotContainAnyElementsOf(MUTATING);
  }

  @Test
  void withoutReverseReplicationItIsNotAsked() {
    assertThat(h.switchTraffic(SwitchHarness.request().withEnableReverseReplication(false)))
        .isInstanceOf(ActionResult.class);
    assertThat(h.calls()).doesNotContain("checkReverseReplication");
  }

  @Test
  void reverseTrafficRefusesInitializeTargetSequencesBeforeTheLocks() {
    Object result = h.reverseTraffic(SwitchHarness.request().withInitializeTargetSequences(true));

    assertThat(failure(result)).hasMessageContaining("initializeTargetSequences applies to MoveTables SwitchTraffic"
        + " only").hasMessageContaining("not to ReverseTraffic");
    assertThat(failure(result).getType()).isEqualTo("INVALID_ARGUMENT");
    assertThat(h.calls()).as("refused before any step").isEmpty();
  }

  /**
   * A workflow task completed after an event of this type: the workflow has seen it. Local steps run
   * inside one workflow task, and the worker ends that task early only when it outlasts most of the
   * task timeout, so the cases that need the workflow to see something while a local step runs set
   * a short one.
   */
  private static Predicate<List<HistoryEvent>> taskCompletedAfter(EventType type) {
    return events -> {
      boolean seen = false;
      for (HistoryEvent e : events) {
        if (e.getEventType() == type) {
          seen = true;
        } else if (seen && e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
          return true;
        }
      }
      return false;
    };
  }

  private List<String> undoCalls() {
    return h.calls().stream().filter(UNDO_STEPS::contains).toList();
  }

  /** The calls after the first call of {@code label}. */
  private List<String> after(String label) {
    List<String> calls = h.calls();
    return calls.subList(calls.indexOf(label) + 1, calls.size());
  }

  private static Throwable cause(Object result) {
    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    return ((WorkflowFailedException) result).getCause();
  }

  private static ApplicationFailure failure(Object result) {
    Throwable cause = cause(result);
    assertThat(cause).isInstanceOf(ApplicationFailure.class);
    return (ApplicationFailure) cause;
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    return Stream.of(parts).flatMap(List::stream).toList();
  }
}
