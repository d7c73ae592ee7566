package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.e2e.vitess.Vtctld;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.lock.LockOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The write window and Vitess's reparents exclude each other through the shard lock, with a real
 * vtctld of Vitess 24: its PlannedReparentShard takes the shard lock before anything else, so on the
 * sandbox (no real tablets) it queues like a real one and then fails for lack of tablets.
 */
@Timeout(600)
class ShardLockInteropTest {
  private static final String WF = "commerce2customer";
  private static final String KS = "customer";

  /**
   * A PlannedReparentShard of the source shard issued while the switch is inside its write window
   * (held right after stopSourceWrites) queues behind pointsman's shard lock and is still waiting
   * seconds later; only once the switch released its locks does it go on (and fail, no tablets).
   */
  @Test
  void aPlannedReparentWaitsUntilTheWriteWindowReleasesItsShardLocks() throws Exception {
    FaultInjection faults = new FaultInjection();
    try (SwitchWorld world = SwitchWorld.start(true, faults);
        Vtctld vtctld = Vtctld.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot())) {
      world.createMoveTables();
      FaultInjection.Block window = faults.blockOnce("stopSourceWrites", When.AFTER);
      WorkflowStub sw = start(world.client());
      await("the switch inside its write window").atMost(Duration.ofSeconds(90)).until(window::reached);
      assertThat(window.locks().locks()).extracting(LockToken::resource)
          .contains("shard commerce/0", "shard customer/-80", "shard customer/80-");

      String locksDir = world.paths.shardDir("commerce", "0") + "/locks/";
      String ours = window.locks().locks().stream().filter(t -> t.resource().equals("shard commerce/0"))
          .findFirst().orElseThrow().key();
      assertThat(lockKeys(world.etcd, locksDir)).containsExactly(ours);
      Process reparent = vtctld.startClient("PlannedReparentShard", "--wait-replicas-timeout", "2s", "commerce/0");
      await("vtctld's shard lock queued behind ours").atMost(Duration.ofSeconds(30))
          .until(() -> lockKeys(world.etcd, locksDir).size() == 2);
      String theirs = lockKeys(world.etcd, locksDir).stream().filter(k -> !k.equals(ours)).findFirst().orElseThrow();
      assertThat(LockContents.parse(lockValue(world.etcd, theirs)).orElseThrow().action())
          .contains("PlannedReparentShard");
      await("PlannedReparentShard still waiting for the write window").during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10)).until(reparent::isAlive);

      window.release();
      ActionResult done = sw.getResult(3, TimeUnit.MINUTES, ActionResult.class);
      assertThat(done.currentState()).isEqualTo(ALL_SWITCHED);
      assertThat(reparent.waitFor(90, TimeUnit.SECONDS)).as("PlannedReparentShard went on after the release")
          .isTrue();
      // it had the lock only after the switch gave it back, then failed for want of tablets
      String output = new String(reparent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(lockKeys(world.etcd, locksDir)).as(output).isEmpty();
      world.assertDefinedState(KS, WF, "ALL_SWITCHED");
    }
  }

  /**
   * A shard lock vtctld holds (a PlannedReparentShard at the head of the shard's queue) keeps the
   * write window from opening: the switch waits in acquireShardLocks, having changed no write, and its
   * progress names vtctld's lock (key, action, host, since when); once vtctld is done it switches.
   */
  @Test
  void theWriteWindowWaitsForAShardLockVtctldHoldsAndNamesIt() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables();
        Vtctld vtctld = Vtctld.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot());
        EtcdLockService locks = new EtcdLockService(world.etcd, world.paths)) {
      world.createMoveTables();
      String locksDir = world.paths.shardDir(KS, "80-") + "/locks/";
      // The test's own lock first, so vtctld's reparent holds its place in line (rather than taking
      // the free lock and failing at once for want of tablets) for as long as the test needs.
      HeldLock first = locks.lockShard(KS, "80-",
          LockOptions.builder().action("shard-lock-interop-test").ttl(Duration.ofSeconds(60)).build());
      Process reparent = vtctld.startClient("PlannedReparentShard", "--wait-replicas-timeout", "2s", KS + "/80-");
      await("vtctld's shard lock queued").atMost(Duration.ofSeconds(30))
          .until(() -> lockKeys(world.etcd, locksDir).size() == 2);
      String vtctldKey = lockKeys(world.etcd, locksDir).stream().filter(k -> !k.equals(first.token().key()))
          .findFirst().orElseThrow();
      LockContents vtctldLock = LockContents.parse(lockValue(world.etcd, vtctldKey)).orElseThrow();

      WorkflowStub sw = start(world.client());
      SwitchTrafficWorkflow query = world.client().newWorkflowStub(SwitchTrafficWorkflow.class,
          sw.getExecution().getWorkflowId());
      await("the switch's progress naming vtctld's shard lock").atMost(Duration.ofSeconds(60))
          .until(() -> running(query, "acquireShardLocks").map(StepProgress::detail).orElse(""),
              d -> d.contains(vtctldKey) && d.contains(vtctldLock.action()) && d.contains(vtctldLock.hostName())
                  && d.contains(vtctldLock.time()));
      assertThat(query.progress().steps()).extracting(StepProgress::name).doesNotContain("stopSourceWrites");

      first.close();
      assertThat(reparent.waitFor(90, TimeUnit.SECONDS)).as("vtctld's reparent ran once the test's lock went")
          .isTrue();
      ActionResult done = sw.getResult(3, TimeUnit.MINUTES, ActionResult.class);
      assertThat(done.currentState()).isEqualTo(ALL_SWITCHED);
      assertThat(query.progress().steps()).extracting(StepProgress::name)
          .containsSubsequence("acquireShardLocks", "stopSourceWrites", "createJournals", "releaseLocks");
      assertThat(lockKeys(world.etcd, locksDir)).isEmpty();
      world.assertDefinedState(KS, WF, "ALL_SWITCHED");
    }
  }

  private static WorkflowStub start(WorkflowClient client) {
    String id = Pointsman.SWITCH_TRAFFIC + "-" + KS + "." + WF + "-" + UUID.randomUUID();
    SwitchTrafficWorkflow sw = client.newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id).build());
    WorkflowClient.start(sw::switchTraffic, SwitchTrafficRequest.of(WF, KS));
    return WorkflowStub.fromTyped(sw);
  }

  private static Optional<StepProgress> running(SwitchTrafficWorkflow query, String step) {
    return query.progress().steps().stream()
        .filter(s -> s.name().equals(step) && s.status() == StepStatus.RUNNING).findFirst();
  }

  private static List<String> lockKeys(Client etcd, String prefix) throws Exception {
    return etcd.getKVClient().get(EtcdClients.bytes(prefix), GetOption.builder().isPrefix(true).withKeysOnly(true)
            .build())
        .get(10, TimeUnit.SECONDS).getKvs().stream().map(kv -> EtcdClients.string(kv.getKey())).toList();
  }

  private static String lockValue(Client etcd, String key) throws Exception {
    return EtcdClients.string(etcd.getKVClient().get(EtcdClients.bytes(key)).get(10, TimeUnit.SECONDS)
        .getKvs().get(0).getValue());
  }
}
