package io.pointsman.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.workflows.ProgressQuery;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The steps outside the write window as local activities (Versions.LOCAL_READS): the reads before
 * the locks, the reads again under them before any change, the checks under them and the prepared
 * barrier (Versions.LOCAL_CHECKS), the revoke at the end and the read of the state after it leave no
 * activity in the history, each a marker instead, and still a step of the progress; what fails them
 * fails the run as it did.
 */
@Timeout(60)
class LocalReadsTest {
  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  @AutoClose
  private final SwitchHarness h = new SwitchHarness();

  @Test
  void aSwitchReadsAndReleasesInLocalStepsAndSchedulesActivitiesOnlyForTheLocksAndTheChanges() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    assertThat(scheduled()).containsExactly("holdLocks", "SwitchReads", "SwitchReads", "holdLocks");
    assertThat(localSteps()).containsSubsequence(
        "BuildTrafficSwitcher", "GetWorkflowState", // before the locks
        "tryAcquireLocks", // the locks, free at once (Versions.LOCAL_ACQUIRE)
        "BuildTrafficSwitcher", "GetWorkflowState", // again under them
        "CanSwitch", "CheckReverseReplication", // the checks under them (Versions.LOCAL_CHECKS)
        "PlanSequences", "PrepareSourceWrites", "ReadReverseStreams", // before the shard locks
        "tryAcquireLocks", // the shard locks
        "checkFailoverTools", "PlanPrimaries", // before the window
        "CheckJournals", "FreezeTargetVReplication", // the window's own local chain
        "releaseLocks", "GetWorkflowState"); // the revoke, then the state after it
    assertThat(events()).extracting(HistoryEvent::getMarkerRecordedEventAttributes)
        .filteredOn(m -> m.getMarkerName().equals("Version"))
        .anySatisfy(m -> assertThat(payload(m.getDetailsOrThrow("changeId"))).contains(Versions.LOCAL_READS));
  }

  /**
   * A local step's marker records its result, which a replay reads, and not its arguments, which
   * nothing reads: the switcher and the lock set, the same in every step and already recorded as the
   * results of the steps that made them (a thousand tables' names in each of twenty-odd markers).
   */
  @Test
  void localStepMarkersRecordTheirResultsNotTheirArguments() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<MarkerRecordedEventAttributes> markers = events().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .map(HistoryEvent::getMarkerRecordedEventAttributes)
        .filter(m -> m.getMarkerName().equals(LOCAL_ACTIVITY_MARKER)).toList();
    assertThat(markers).hasSizeGreaterThan(15)
        .allSatisfy(m -> assertThat(m.getDetailsMap()).as(payload(m.getDetailsOrThrow("type")))
            .doesNotContainKey("input"));
    assertThat(markers).filteredOn(m -> payload(m.getDetailsOrThrow("type")).equals("BuildTrafficSwitcher"))
        .isNotEmpty().allSatisfy(m -> assertThat(payload(m.getDetailsOrThrow("result"))).contains("commerce2customer"));
  }

  /**
   * What makes the checks safe as local steps: each one's marker reaches the history in the same
   * workflow task completion that schedules the next change, so a replacement worker never asks
   * again after a change it cannot see, and the saved reverse streams are recorded before the
   * window's local chain, which restores them when it is undone.
   */
  @Test
  void eachLocalCheckIsRecordedBeforeTheActivityOfTheChangeAfterIt() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<HistoryEvent> events = events();
    assertThat(markerBefore(events, "CanSwitch", "SwitchReads")).isTrue();
    // the shard locks are taken in the same task (Versions.LOCAL_ACQUIRE), which ends by scheduling
    // their holdLocks; the window's chain waits for its report, in a later task
    assertThat(markerBefore(events, "PrepareSourceWrites", "holdLocks")).isTrue();
    assertThat(markerBefore(events, "ReadReverseStreams", "holdLocks")).isTrue();
    assertThat(localSteps()).containsSubsequence("ReadReverseStreams", "CheckJournals", "StopSourceWrites");
    assertThat(events).extracting(HistoryEvent::getMarkerRecordedEventAttributes)
        .filteredOn(m -> m.getMarkerName().equals("Version"))
        .anySatisfy(m -> assertThat(payload(m.getDetailsOrThrow("changeId"))).contains(Versions.LOCAL_CHECKS));
  }

  /**
   * After each acquisition the local steps wait for holdLocks's report that it renews the leases
   * (Versions.HOLDING_SIGNAL), not for a timer, which a Temporal server fires up to a second late:
   * each holdLocks's signal, naming its set, comes between its schedule and the next local step,
   * and no timer fires in the run.
   */
  @Test
  void theLocalStepsAfterEachAcquisitionWaitForItsHoldLocksToReportNotForATimer() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<HistoryEvent> events = events();
    assertThat(events).extracting(HistoryEvent::getEventType).doesNotContain(EventType.EVENT_TYPE_TIMER_FIRED);
    List<Integer> holds = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      HistoryEvent e = events.get(i);
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("holdLocks")) {
        holds.add(i);
      }
    }
    assertThat(holds).hasSize(2);
    for (int hold : holds) {
      int signal = -1;
      int nextLocal = -1;
      for (int i = hold + 1; i < events.size() && nextLocal < 0; i++) {
        HistoryEvent e = events.get(i);
        if (signal < 0 && e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
            && e.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals(HoldingStarted.SIGNAL)) {
          signal = i;
        } else if (e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
            && e.getMarkerRecordedEventAttributes().getMarkerName().equals(LOCAL_ACTIVITY_MARKER)) {
          nextLocal = i;
        }
      }
      assertThat(signal).as("holdLocks's report after event %d", hold + 1).isPositive();
      assertThat(nextLocal).as("a local step after event %d", hold + 1).isGreaterThan(signal);
    }
  }

  /** A holdLocks that cannot report holds the switch back for a few seconds, not for good. */
  @Test
  @Timeout(90)
  void aHoldLocksThatNeverReportsDelaysTheLocalStepsOnlyUntilTheWaitEnds() {
    h.silentHold();
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<HistoryEvent> events = events();
    assertThat(events).extracting(HistoryEvent::getEventType)
        .doesNotContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    assertThat(events).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_FIRED).hasSize(2);
    assertThat(localSteps()).containsSubsequence("CanSwitch", "checkFailoverTools", "StopSourceWrites");
  }

  /**
   * Whether the local marker of {@code local} comes before the first activity of type
   * {@code activity} scheduled after it, with no workflow task started between them (the same task's
   * completion recorded both).
   */
  private static boolean markerBefore(List<HistoryEvent> events, String local, String activity) {
    int marker = -1;
    for (int i = 0; i < events.size(); i++) {
      HistoryEvent e = events.get(i);
      if (e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
          && e.getMarkerRecordedEventAttributes().getMarkerName().equals(LOCAL_ACTIVITY_MARKER)
          && payload(e.getMarkerRecordedEventAttributes().getDetailsOrThrow("type")).equals(local)) {
        marker = i;
      } else if (marker >= 0 && e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        return false;
      } else if (marker >= 0 && e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals(activity)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theProgressStillListsEveryLocalStepWithItsTimes() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    Progress progress = h.env.getWorkflowClient().newWorkflowStub(ProgressQuery.class, h.workflowId)
        .progress();
    List<String> names = progress.steps().stream().map(StepProgress::name).toList();
    assertThat(names).startsWith("buildTrafficSwitcher", "getWorkflowState", "acquireLocks", "buildTrafficSwitcher",
        "getWorkflowState", "canSwitch", "checkReverseReplication").endsWith("releaseLocks", "getWorkflowState");
    assertThat(progress.steps()).allSatisfy(s -> {
      assertThat(s.status()).as(s.name()).isEqualTo(StepStatus.DONE);
      assertThat(s.finishedAt()).as(s.name()).isNotNull().isAfterOrEqualTo(s.startedAt());
    });
  }

  @Test
  void theLeasesAreRevokedBeforeHoldLocksEndsSoItEndsOnItsOwnUncancelled() {
    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<HistoryEvent> events = events();
    assertThat(events).extracting(HistoryEvent::getEventType)
        .doesNotContain(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED);
    // both holdLocks (the action's locks, the write window's shard locks) completed before the run did
    List<Long> holds = events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("holdLocks"))
        .map(HistoryEvent::getEventId).toList();
    assertThat(holds).hasSize(2);
    assertThat(events).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
        .extracting(e -> e.getActivityTaskCompletedEventAttributes().getScheduledEventId())
        .containsAll(holds);
    assertThat(h.calls()).containsSubsequence("freezeTargetVReplication", "releaseLocks", "getWorkflowState");
  }

  @Test
  void aRevokeThatFailsCancelsHoldLocksSoNothingRenewsTheLeasesAndTheSwitchStillSucceeds() {
    h.fail("releaseLocks");

    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    assertThat(events()).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED)
        .hasSize(2);
    Progress progress = h.env.getWorkflowClient().newWorkflowStub(ProgressQuery.class, h.workflowId)
        .progress();
    assertThat(progress.steps()).filteredOn(s -> s.name().equals("releaseLocks")).singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(StepStatus.FAILED))
        .satisfies(s -> assertThat(s.detail()).contains("the leases expire within their TTL"));
  }

  @Test
  void aFailedReadBeforeTheLocksFailsTheRunWithTheErrorTheReadFailedWith() {
    h.override("buildTrafficSwitcher", inv -> {
      throw ApplicationFailure.newNonRetryableFailure("workflow commerce2customer not found in keyspace customer",
          "NOT_FOUND");
    });

    Object result = h.switchTraffic(SwitchHarness.request());

    assertThat(result).isInstanceOf(WorkflowFailedException.class);
    Throwable cause = ((WorkflowFailedException) result).getCause();
    assertThat(cause).isInstanceOf(ActivityFailure.class);
    assertThat(((ActivityFailure) cause).getActivityType()).isEqualTo("BuildTrafficSwitcher");
    assertThat(cause.getCause()).isInstanceOf(ApplicationFailure.class);
    ApplicationFailure failure = (ApplicationFailure) cause.getCause();
    assertThat(failure.getType()).isEqualTo("NOT_FOUND");
    assertThat(failure.getOriginalMessage()).isEqualTo("workflow commerce2customer not found in keyspace customer");
    assertThat(h.calls()).containsExactly("buildTrafficSwitcher");
  }

  @Test
  void aReadThatFailsOnceIsRetriedAfterATimerSoTheTaskEndsBetweenAttempts() {
    AtomicBoolean failed = new AtomicBoolean();
    h.override("getWorkflowState", inv -> {
      if (failed.compareAndSet(false, true)) {
        throw ApplicationFailure.newFailure("etcd unavailable", "UNAVAILABLE");
      }
      return SwitchHarness.NOTHING_SWITCHED;
    });

    assertThat(h.switchTraffic(SwitchHarness.request())).isInstanceOf(ActionResult.class);

    List<EventType> types = events().stream().map(HistoryEvent::getEventType).toList();
    assertThat(types.indexOf(EventType.EVENT_TYPE_TIMER_STARTED)).as("a retry timer before the locks")
        .isNotNegative().isLessThan(types.indexOf(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED));
    assertThat(h.calls()).startsWith("buildTrafficSwitcher", "getWorkflowState", "getWorkflowState", "acquireLocks");
  }

  @Test
  void aDryRunSchedulesNoActivityAtAll() {
    ActionResult result = (ActionResult) h.switchTraffic(SwitchHarness.request().withDryRun(true));

    assertThat(result.dryRunResults()).isNotEmpty();
    assertThat(scheduled()).isEmpty();
    assertThat(localSteps()).startsWith("BuildTrafficSwitcher", "GetWorkflowState");
  }

  @Test
  void completeAndCancelReadAndReleaseInLocalStepsToo() {
    h.states(SwitchHarness.ALL_SWITCHED);

    assertThat(h.complete(SwitchHarness.completeRequest())).isInstanceOf(ActionResult.class);

    assertThat(scheduled()).doesNotContain("ReadMigrateWorkflow", "ReadUnfinishedCleanup", "BuildTrafficSwitcher",
        "GetWorkflowState", "releaseLocks", "acquireLocks").contains("holdLocks", "DropSources", "DeleteStreams");
    assertThat(localSteps()).containsSubsequence("ReadMigrateWorkflow", "ReadUnfinishedCleanup",
        "BuildTrafficSwitcher", "GetWorkflowState", "tryAcquireLocks", "ReadUnfinishedCleanup", "BuildTrafficSwitcher",
        "GetWorkflowState", "releaseLocks");
  }

  private List<HistoryEvent> events() {
    return h.env.getWorkflowClient().fetchHistory(h.workflowId).getEvents();
  }

  /** The activity types the run scheduled, in order. */
  private List<String> scheduled() {
    return events().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
  }

  /** The activity types the run's local activity markers record, in order. */
  private List<String> localSteps() {
    return events().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .map(HistoryEvent::getMarkerRecordedEventAttributes)
        .filter(m -> m.getMarkerName().equals(LOCAL_ACTIVITY_MARKER))
        .map(m -> payload(m.getDetailsOrThrow("type"))).toList();
  }

  private static String payload(io.temporal.api.common.v1.Payloads p) {
    return p.getPayloads(0).getData().toStringUtf8().replace("\"", "");
  }
}
