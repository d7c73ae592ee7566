package io.pointsman.e2e.process;

import static io.pointsman.e2e.process.ProcessWorld.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S1 of docs/failure-scenarios.md §2 with a real process: the only worker is frozen with SIGSTOP in
 * the middle of the write switch's critical section, for longer than its 10 s lock TTL, so its
 * leases expire; another actor takes the keyspace lock and writes under it; then the worker is
 * resumed. Nothing the resumed worker does may land while the other actor holds the lock, and once
 * it lets go the switch must end in a defined state.
 *
 * <p>The worker is frozen with a guarded change already sent to MySQL (it waits for a fence row
 * this test holds, see {@link FenceBlocker}), which is the hard case: on resume that change runs at
 * once, and only the fence the other actor raised can stop it.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PausedWorkerLosesItsLocksTest {
  private static final Logger log = LoggerFactory.getLogger(PausedWorkerLosesItsLocksTest.class);
  private static final Duration LOCK_TTL = Duration.ofSeconds(10);
  @AutoClose
  private static ProcessWorld world;
  private static WorkerProcess worker;

  @BeforeAll
  static void up() throws Exception {
    // The real Temporal server: when both holdLocks (keyspace and shard locks) fail at once, the
    // workflow may cancel one whose failure the server has recorded but the task has not seen yet.
    // The server takes that in its stride; the SDK's in-memory test server answers ACTIVITY_UNKNOWN
    // to the whole task and the run stalls (seen twice in a row once planPrimaries moved the timing).
    world = ProcessWorld.start(true);
    worker = world.startWorkerAndSwitchReads();
  }

  @Test
  void aWorkerPausedPastItsLockTtlWritesNothingWhileAnotherActorHoldsTheLock() throws Exception {
    Outcome outcome = pausedSwitch(5_000_000);
    if (outcome.switched()) {
      world.reverseWrites(); // the next case starts from writes not switched
    } else {
      assertThat(world.routedToSource()).isTrue();
    }
  }

  /**
   * The same run, also requiring what a rolled-back MoveTables needs beyond the validator's
   * invariants: its forward streams replicating again. The paused worker's first pass through the
   * critical section stopped a target stream in waitForCatchup; after its workflow task timed out the
   * chain runs again and fails at stopSourceWrites (lock lost), before its own waitForCatchup. Its
   * restartStreams must be registered all the same (it now is, ahead of the chain's first change),
   * or the rollback leaves that stream Stopped "for cutover", which the validator does not see.
   */
  @Test
  void aRolledBackSwitchLeavesTheForwardStreamsRunning() throws Exception {
    Outcome outcome = pausedSwitch(6_000_000);
    if (!outcome.switched()) {
      world.awaitForwardStreamsRunning();
    } else {
      world.reverseWrites();
    }
  }

  /**
   * Runs the scenario under router load; checks that nothing was written while the other actor held
   * the lock, that the run ended in a state the validator accepts with every lock released, and that
   * no acknowledged write was lost. Returns how the run ended.
   */
  private Outcome pausedSwitch(long firstCustomerId) throws Exception {
    world.assertDefinedState("READS_SWITCHED");
    SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    try (RouterLoad load = RouterLoad.start(world.router(), firstCustomerId)) {
      try (FenceBlocker fence = FenceBlocker.hold(world, TARGET, "-80");
          EtcdLockService otherActor = new EtcdLockService(world.etcd, world.paths)) {
        WorkflowClient.start(wf::switchTraffic, ProcessWorld.writesOnly().withLockTtl(LOCK_TTL));
        // inside waitForCatchup: source writes stopped, about to stop the target's streams
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(fence::someoneWaits);
        assertThat(world.switchLockKeys()).as("the locks the worker holds").hasSize(3);
        long workerToken = world.newestLockRevision();

        worker.pause();
        // Nothing renews the frozen worker's leases: etcd deletes its lock keys within the TTL.
        await().atMost(LOCK_TTL.multipliedBy(4)).pollInterval(Duration.ofMillis(200))
            .until(() -> world.switchLockKeys().isEmpty());
        HeldLock taken = otherActor.lockKeyspace(TARGET, LockOptions.builder().action("S1: another actor")
            .ttl(Duration.ofMinutes(1)).build());
        assertThat(taken.token().fencingToken()).isGreaterThan(workerToken);
        // A new holder's first guarded change on a primary raises that primary's fence to its token.
        for (String shard : world.store().listShards(TARGET)) {
          world.services.fence().check(world.primary(TARGET, shard), LockSet.of(taken.token()),
              "S1: another actor writes under the keyspace lock");
        }
        WriteSnapshot before = WriteSnapshot.take(world);

        fence.release(); // the frozen worker's statement, sent before the pause, now gets the row
        worker.resume();
        // It sees its loss and queues for the locks again, behind the other actor's key.
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
            .until(() -> world.lockKeys(world.paths.keyspaceDir(TARGET)).size() >= 2);
        List<String> written = before.changesTo(WriteSnapshot.take(world));
        assertThat(written).as("written after the worker lost its locks, while another actor held one"
            + world.workerLogs()).isEmpty();
        // ... and the statement it had in flight was refused by the fence, not merely late
        assertThat(worker.logged("was taken over")).as(world.workerLogs()).isTrue();
        assertThat(worker.isAlive()).isTrue();
        taken.close();
      }

      Outcome outcome = Outcome.of(stub);
      log.info("after the other actor let go, the switch {}; steps: {}", outcome, Outcome.steps(wf.progress()));
      if (outcome.switched()) {
        assertThat(outcome.result().currentState()).isEqualTo(ProcessWorld.ALL_SWITCHED);
        world.assertDefinedState("ALL_SWITCHED");
      } else {
        assertThat(outcome.failure()).as(world.workerLogs()).startsWith("LOCK_LOST").contains("rolled back");
        world.assertDefinedState("READS_SWITCHED");
      }
      assertThat(world.switchLockKeys()).as("locks released at the end").isEmpty();
      load.awaitMoreAcknowledged();
      load.stopAndVerify("a switch whose worker was paused past its lock TTL");
      return outcome;
    }
  }
}
