package io.pointsman.activities;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.workflows.LockActivitiesTestWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A test Temporal service (no time skipping: leases live in real time), a fresh etcd root with two
 * keyspaces, and ways to look at both without trusting the code under test.
 */
final class LockActivitiesHarness implements AutoCloseable {
  static final String TASK_QUEUE = "lock-activities-test";
  /** How long the tests wait for what must happen, with room for a loaded machine. */
  static final Duration PATIENT = Duration.ofSeconds(60);

  final Client etcd = TestEtcd.client();
  final TopoPaths paths = TestEtcd.freshPaths();
  final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
      TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());

  LockActivitiesHarness() throws Exception {
    put(paths.keyspace("commerce"), "{}");
    put(paths.keyspace("customer"), "{}");
  }

  WorkflowClient client() {
    return env.getWorkflowClient();
  }

  static LockRequest request(Duration ttl, String... keyspaces) {
    return new LockRequest("customer/commerce2customer", List.of(keyspaces), "SwitchTraffic", ttl,
        Duration.ofMinutes(10));
  }

  LockActivitiesTestWorkflow newWorkflow() {
    return client().newWorkflowStub(LockActivitiesTestWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(TASK_QUEUE)
        .setWorkflowId("lock-test-" + UUID.randomUUID())
        .setWorkflowExecutionTimeout(Duration.ofMinutes(5))
        .build());
  }

  static LockActivitiesTestWorkflow.Outcome outcome(LockActivitiesTestWorkflow workflow, Duration timeout)
      throws Exception {
    return WorkflowStub.fromTyped(workflow).getResult(timeout.toMillis(), TimeUnit.MILLISECONDS,
        LockActivitiesTestWorkflow.Outcome.class);
  }

  /** Every lock key under this test's etcd root. */
  List<String> lockKeys() throws Exception {
    return etcd.getKVClient().get(bytes(paths.cellRootPrefix() + "/"), GetOption.builder().isPrefix(true).withKeysOnly(true).build())
        .get(10, TimeUnit.SECONDS).getKvs().stream()
        .map(kv -> EtcdClients.string(kv.getKey()))
        .filter(TopoPaths::isLockKey)
        .toList();
  }

  Optional<KeyValue> get(String key) throws Exception {
    return etcd.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs().stream().findFirst();
  }

  /** The lock as etcd has it: lease alive, key there with the token's create revision and lease. */
  boolean holds(LockToken token) throws Exception {
    Optional<KeyValue> kv = get(token.key());
    long ttl = etcd.getLeaseClient().timeToLive(token.leaseId(), LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS)
        .getTTL();
    return ttl > 0 && kv.isPresent() && kv.get().getCreateRevision() == token.createRevision()
        && kv.get().getLease() == token.leaseId();
  }

  boolean holdsAll(LockSet set) throws Exception {
    for (LockToken token : set.locks()) {
      if (!holds(token)) {
        return false;
      }
    }
    return true;
  }

  LockContents contents(LockToken token) throws Exception {
    return LockContents.parse(EtcdClients.string(get(token.key()).orElseThrow().getValue())).orElseThrow();
  }

  void revoke(long leaseId) throws Exception {
    etcd.getLeaseClient().revoke(leaseId).get(10, TimeUnit.SECONDS);
  }

  void put(String key, String value) throws Exception {
    etcd.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
  }

  /** The running holdLocks as the Temporal service sees it: its attempt and last heartbeat details. */
  Optional<PendingHold> pendingHold(LockActivitiesTestWorkflow workflow) {
    WorkflowExecution execution = WorkflowStub.fromTyped(workflow).getExecution();
    List<PendingActivityInfo> pending = client().getWorkflowServiceStubs().blockingStub()
        .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(env.getNamespace()).setExecution(execution).build())
        .getPendingActivitiesList();
    return pending.stream()
        .filter(a -> a.getActivityType().getName().equals("holdLocks"))
        .findFirst()
        .map(a -> new PendingHold(a.getAttempt(), a.hasHeartbeatDetails()
            ? DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0, Optional.of(a.getHeartbeatDetails()),
                LockHoldProgress.class, LockHoldProgress.class)
            : null));
  }

  /**
   * @param attempt the attempt the service started last
   * @param progress its last heartbeat details; null before the first
   */
  record PendingHold(int attempt, LockHoldProgress progress) {}

  @Override
  public void close() {
    env.close();
    etcd.close();
  }
}
