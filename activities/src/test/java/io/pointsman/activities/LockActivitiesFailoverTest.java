package io.pointsman.activities;

import static io.pointsman.activities.LockActivitiesHarness.PATIENT;
import static io.pointsman.activities.LockActivitiesHarness.outcome;
import static io.pointsman.activities.LockActivitiesHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.workflows.LockActivitiesTestWorkflow;
import io.pointsman.workflows.LockActivitiesTestWorkflow.Mode;
import io.pointsman.workflows.LockActivitiesTestWorkflow.Outcome;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker holding the locks goes away and holdLocks' retry on another worker, with its own etcd
 * client and lock service, re-attaches to the same leases.
 */
@Timeout(240)
class LockActivitiesFailoverTest {
  /** The retry must attach within what is left of a TTL after the last renewal on worker A. */
  private static final Duration TTL = Duration.ofSeconds(6);

  private LockActivitiesHarness harness;
  private Client etcdA;
  private Client etcdB;
  private EtcdLockService locksA;
  private EtcdLockService locksB;
  private WorkerFactory workerA;
  private WorkerFactory workerB;

  @BeforeEach
  void setUp() throws Exception {
    harness = new LockActivitiesHarness();
    // the test environment's own worker runs the workflow only; activities run on A, later on B
    harness.env.newWorker(LockActivitiesHarness.TASK_QUEUE)
        .registerWorkflowImplementationTypes(LockActivitiesTestWorkflow.Impl.class);
    harness.env.start();
    etcdA = TestEtcd.client();
    etcdB = TestEtcd.client();
    locksA = new EtcdLockService(etcdA, harness.paths);
    locksB = new EtcdLockService(etcdB, harness.paths);
    workerA = activityWorker(locksA);
    workerA.start();
  }

  private WorkerFactory activityWorker(EtcdLockService locks) {
    WorkerFactory factory = WorkerFactory.newInstance(harness.client());
    factory.newWorker(LockActivitiesHarness.TASK_QUEUE).registerActivitiesImplementations(new LockActivitiesImpl(locks));
    return factory;
  }

  @AfterEach
  void tearDown() {
    for (WorkerFactory f : new WorkerFactory[] {workerA, workerB}) {
      if (f != null) {
        f.shutdownNow();
        f.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
    harness.env.shutdownNow();
    harness.env.awaitTermination(10, TimeUnit.SECONDS);
    locksA.close();
    locksB.close();
    etcdA.close();
    etcdB.close();
    harness.close();
  }

  @Test
  void theRetryOnAnotherWorkerReattachesToTheSameLeasesWhenTheHoldingWorkerGoesAway() throws Exception {
    LockActivitiesTestWorkflow workflow = harness.newWorkflow();
    WorkflowClient.start(workflow::run, request(TTL, "commerce", "customer"), Mode.HOLD);
    LockSet set = await().atMost(PATIENT).pollInterval(Duration.ofMillis(100)).until(workflow::locks, l -> l != null);
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(200))
        .until(() -> harness.pendingHold(workflow)
            .map(h -> h.attempt() == 1 && h.progress() != null && h.progress().allHeldAt() != null).orElse(false));

    // B is ready before A goes, so the retry has somewhere to run; A stops without revoking anything
    workerB = activityWorker(locksB);
    workerB.start();
    workerA.shutdownNow();
    workerA.awaitTermination(30, TimeUnit.SECONDS);
    assertThat(workerA.isTerminated()).isTrue();
    locksA.close(); // nothing on A renews any more, as if its process were gone

    await().atMost(PATIENT).pollInterval(Duration.ofMillis(200))
        .until(() -> harness.pendingHold(workflow)
            .map(h -> h.progress() != null && h.progress().attempt() >= 2 && h.progress().allHeldAt() != null)
            .orElse(false));
    // only B renews now: the same keys, with the same create revisions, outlive several TTLs
    await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(2).plus(PATIENT)).pollInterval(Duration.ofMillis(250))
        .until(() -> harness.holdsAll(set));
    assertThat(harness.lockKeys()).hasSize(3);

    workflow.finish();
    Outcome outcome = outcome(workflow, PATIENT);
    assertThat(outcome.holdEnd()).isEqualTo("cancelled");
    assertThat(outcome.locks()).isEqualTo(set);
    assertThat(harness.lockKeys()).isEmpty();
  }
}
