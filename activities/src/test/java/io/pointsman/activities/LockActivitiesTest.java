package io.pointsman.activities;

import static io.pointsman.activities.LockActivitiesHarness.PATIENT;
import static io.pointsman.activities.LockActivitiesHarness.outcome;
import static io.pointsman.activities.LockActivitiesHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.workflows.LockActivitiesTestWorkflow;
import io.pointsman.workflows.LockActivitiesTestWorkflow.Mode;
import io.pointsman.workflows.LockActivitiesTestWorkflow.Outcome;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The lock activities driven by a workflow on the Temporal test service, against real etcd. */
@Timeout(180)
class LockActivitiesTest {
  /** Long enough for a loaded machine: the holdLocks heartbeat timeout is a quarter of it, clamped to 1 s. */
  private static final Duration TTL = Duration.ofSeconds(3);

  private LockActivitiesHarness harness;
  private EtcdLockService locks;

  @BeforeEach
  void setUp() throws Exception {
    harness = new LockActivitiesHarness();
    locks = new EtcdLockService(harness.etcd, harness.paths);
    Worker worker = harness.env.newWorker(LockActivitiesHarness.TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(LockActivitiesTestWorkflow.Impl.class);
    worker.registerActivitiesImplementations(new LockActivitiesImpl(locks));
    harness.env.start();
  }

  @AfterEach
  void tearDown() {
    harness.env.shutdownNow();
    harness.env.awaitTermination(10, TimeUnit.SECONDS);
    locks.close();
    harness.close();
  }

  private LockSet awaitLocks(LockActivitiesTestWorkflow workflow) {
    return await().atMost(PATIENT).pollInterval(Duration.ofMillis(100)).until(workflow::locks, l -> l != null);
  }

  @Test
  void acquireTakesTheNamedLockThenTheKeyspacesInOrderAndNamesTheWorkflowAsHolder() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    WorkflowExecution execution = WorkflowClient.start(workflow::run, request(TTL, "customer", "commerce"), Mode.HOLD);

    LockSet set = awaitLocks(workflow);

    assertThat(set.locks()).extracting(LockToken::resource)
        .containsExactly("named lock customer/commerce2customer", "keyspace commerce", "keyspace customer");
    assertThat(set.locks()).extracting(LockToken::createRevision).isSorted().doesNotHaveDuplicates();
    assertThat(set.locks().get(0).key()).startsWith(harness.paths.namedLockDir("customer/commerce2customer") + "/locks/");
    assertThat(set.locks().get(1).key()).startsWith(harness.paths.keyspaceDir("commerce") + "/locks/");
    assertThat(set.locks().get(2).key()).startsWith(harness.paths.keyspaceDir("customer") + "/locks/");
    assertThat(set.locks()).allSatisfy(t -> {
      assertThat(t.ttl()).isEqualTo(TTL);
      assertThat(t.maxHold()).isEqualTo(Duration.ofMinutes(10));
    });
    for (LockToken token : set.locks()) {
      LockContents value = harness.contents(token);
      assertThat(value.action()).isEqualTo("SwitchTraffic");
      assertThat(value.status()).isEqualTo(LockContents.RUNNING);
      assertThat(value.temporalNamespace()).isEqualTo(harness.env.getNamespace());
      assertThat(value.temporalWorkflowId()).isEqualTo(execution.getWorkflowId());
      assertThat(value.temporalRunId()).isEqualTo(execution.getRunId());
    }

    workflow.finish();
    assertThat(outcome(workflow, PATIENT).holdEnd()).isEqualTo("cancelled");
    assertThat(harness.lockKeys()).isEmpty();
  }

  @Test
  void holdLocksKeepsTheLeasesAliveWellPastTheirTtlAndEndsCleanlyWhenTheWorkflowCancelsIt() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    WorkflowClient.start(workflow::run, request(TTL, "customer"), Mode.HOLD);
    LockSet set = awaitLocks(workflow);
    // holdLocks is attached and heartbeating (its details come from past the attach)
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(200))
        .until(() -> harness.pendingHold(workflow).map(h -> h.progress() != null && h.progress().allHeldAt() != null)
            .orElse(false));

    AtomicLong beats = new AtomicLong();
    await().during(TTL.multipliedBy(4)).atMost(TTL.multipliedBy(4).plus(PATIENT)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          harness.pendingHold(workflow).map(LockActivitiesHarness.PendingHold::progress)
              .ifPresent(p -> beats.accumulateAndGet(p.beats(), Math::max));
          return harness.holdsAll(set);
        });
    assertThat(beats.get()).as("heartbeats recorded by the service").isGreaterThan(3);

    workflow.finish();
    Outcome outcome = outcome(workflow, PATIENT);
    assertThat(outcome.holdEnd()).isEqualTo("cancelled");
    assertThat(harness.lockKeys()).isEmpty();
  }

  /** What the workflow's local steps after an acquisition wait for (HoldingStarted). */
  @Test
  void holdLocksTellsItsWorkflowOnceItRenewsTheLeasesNamingTheSetByItsFencingToken() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    WorkflowClient.start(workflow::run, request(TTL, "customer"), Mode.HOLD);
    LockSet set = awaitLocks(workflow);
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(100)).until(() -> !workflow.holdingReported().isEmpty());
    assertThat(workflow.holdingReported()).containsExactly(set.fencingToken());
    assertThat(harness.holdsAll(set)).isTrue();

    workflow.finish();
    assertThat(outcome(workflow, PATIENT).holdEnd()).isEqualTo("cancelled");
  }

  @Test
  void aLeaseRevokedBehindTheHoldersBackFailsHoldLocksWithLockLostPromptly() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    WorkflowClient.start(workflow::run, request(TTL, "commerce", "customer"), Mode.HOLD);
    LockSet set = awaitLocks(workflow);
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(200))
        .until(() -> harness.pendingHold(workflow).map(h -> h.progress() != null && h.progress().allHeldAt() != null)
            .orElse(false));
    LockToken victim = set.locks().get(2);

    long revokedAt = System.nanoTime();
    harness.revoke(victim.leaseId());
    Outcome outcome = outcome(workflow, PATIENT);
    Duration noticedAfter = Duration.ofNanos(System.nanoTime() - revokedAt);

    assertThat(outcome.holdEnd()).isEqualTo("failed");
    assertThat(outcome.holdFailureType()).isEqualTo("LOCK_LOST");
    assertThat(outcome.holdFailureMessage()).contains("keyspace customer").containsAnyOf("LEASE_GONE", "KEY_GONE");
    // renewal runs every TTL/3; the rest is the workflow round trip and the releases
    assertThat(noticedAfter).isLessThan(TTL.multipliedBy(4));
    assertThat(harness.lockKeys()).as("the workflow released the other locks").isEmpty();
  }

  /** The local first try (Versions.LOCAL_ACQUIRE): free locks are taken inside the workflow task. */
  @Test
  void tryAcquireLocksTakesFreeLocksAsALocalStepAndNamesTheWorkflowAsHolder() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    long before = System.currentTimeMillis();
    Outcome outcome = workflow.run(request(TTL, "customer"), Mode.TRY_ONLY);

    assertThat(outcome.holdEnd()).isEqualTo("not held");
    assertThat(outcome.locks().locks()).extracting(LockToken::resource)
        .containsExactly("named lock customer/commerce2customer", "keyspace customer");
    String workflowId = WorkflowStub.fromTyped(workflow).getExecution().getWorkflowId();
    for (LockToken token : outcome.locks().locks()) {
      assertThat(harness.contents(token).temporalWorkflowId()).isEqualTo(workflowId);
      // stamped on the workflow's clock, the test server's: this machine's here, so within the run
      assertThat(token.acquiredAt().toEpochMilli()).isBetween(before - 1000, System.currentTimeMillis());
    }
    assertThat(harness.client().fetchHistory(workflowId).getEvents()).extracting(HistoryEvent::getEventType)
        .doesNotContain(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  }

  /**
   * The try stamps each lock on the server's clock, given as the workflow's time, not on this
   * worker's wall clock: a worker an hour ahead of the server must not make the locks look an hour
   * younger to the holdLocks that attaches to them, perhaps on another worker.
   */
  @Test
  void tryAcquireLocksStampsTheLocksWithTheWorkflowsTimeNotThisWorkersClock() throws Exception {
    long before = System.currentTimeMillis();
    Outcome outcome = harness.newWorkflow().run(request(TTL, "customer"), Mode.TRY_ONLY_SERVER_AN_HOUR_BEHIND);
    long after = System.currentTimeMillis();

    long hour = Duration.ofHours(1).toMillis();
    assertThat(outcome.locks().locks()).hasSize(2).allSatisfy(token ->
        assertThat(token.acquiredAt().toEpochMilli()).isBetween(before - hour - 1000, after - hour));
  }

  /**
   * Held by another workflow, the try gives up at once and names the holder, so the waiting
   * acquireLocks can take over; it leaves no key of its own in the line, and no warning in the
   * worker's log: the SDK logs a failure of the category BENIGN at debug level only.
   */
  @Test
  void tryAcquireLocksFailsAtOnceNamingTheHolderWhenAnotherWorkflowHoldsALock() throws Exception {
    LockActivitiesTestWorkflow holder = harness.newWorkflow();
    WorkflowExecution held = WorkflowClient.start(holder::run, request(TTL, "customer"), Mode.HOLD);
    LockSet holderLocks = awaitLocks(holder);

    ListAppender<ILoggingEvent> sdkLog = new ListAppender<>();
    ch.qos.logback.classic.Logger activityLog =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.temporal.internal.activity");
    Level configured = activityLog.getLevel();
    sdkLog.start();
    activityLog.addAppender(sdkLog);
    activityLog.setLevel(Level.DEBUG);
    long started = System.nanoTime();
    Outcome outcome;
    try {
      outcome = harness.newWorkflow().run(request(TTL, "customer"), Mode.TRY_ONLY);
    } finally {
      activityLog.setLevel(configured);
      activityLog.detachAppender(sdkLog);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    // an expected fallback, not a failure worth a warning and a stack trace in the worker's log: the
    // SDK logs it at debug level (seen here, so this listens where the SDK logs) and no higher
    assertThat(sdkLog.list).filteredOn(e -> e.getFormattedMessage().contains("tryAcquireLocks"))
        .isNotEmpty().allMatch(e -> e.getLevel() == Level.DEBUG);

    assertThat(outcome.locks()).isNull();
    assertThat(outcome.holdFailureType()).isEqualTo("LOCK_TIMEOUT");
    assertThat(outcome.holdFailureMessage()).contains("named lock customer/commerce2customer", "still held by",
        held.getWorkflowId());
    // far below acquireLocks's own deadline (45 s), which the waiting fallback would use up
    assertThat(took).isLessThan(Duration.ofSeconds(10));
    assertThat(harness.lockKeys()).containsExactlyInAnyOrderElementsOf(
        holderLocks.locks().stream().map(LockToken::key).toList());

    holder.finish();
    assertThat(outcome(holder, PATIENT).holdEnd()).isEqualTo("cancelled");
  }

  @Test
  void aFailedAcquisitionMidwayLeavesNoKeyOfOursBehind() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    // sorted: customer (exists) is locked before missing (does not)
    assertThatThrownBy(() -> workflow.run(request(TTL, "missing", "customer"), Mode.HOLD))
        .isInstanceOf(WorkflowFailedException.class)
        .cause().isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo("NOT_FOUND");
          assertThat(f.isNonRetryable()).isTrue();
          assertThat(f.getOriginalMessage()).contains("missing");
        });

    assertThat(harness.lockKeys()).isEmpty();
  }

  @Test
  void locksThatNobodyHoldsAfterAcquireExpireSoonInsteadOfLingeringUntilMaxHold() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    Outcome outcome = workflow.run(request(TTL, "customer"), Mode.ACQUIRE_ONLY);
    long acquiredAt = System.nanoTime();

    // the acquiring worker renews for TTL/2, then lets go: gone by about 3/2 TTL after acquisition
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(200)).until(() -> harness.lockKeys().isEmpty());
    assertThat(Duration.ofNanos(System.nanoTime() - acquiredAt)).isLessThan(TTL.multipliedBy(5));
    assertThat(outcome.locks().locks()).hasSize(2);
  }
}
