package io.pointsman.e2e.process;

import static io.pointsman.e2e.process.ProcessWorld.SOURCE;
import static io.pointsman.e2e.process.ProcessWorld.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S10 of docs/failure-scenarios.md §2, with real processes: the only worker polling is SIGKILLed while
 * the write switch is inside its critical section (local activities holding the locks), at three
 * points it provably reached, and a worker started afterwards must bring the switch to a defined
 * end: the workflow completes, the validator is silent, no lock key is left, and the router load
 * that ran throughout lost and duplicated no acknowledged write.
 *
 * <p>Before the journal a rollback is a defined end too (the workflow then fails saying so, and
 * the MoveTables must replicate again); after it only the finished switch is.
 *
 * <p>Each point is held open by {@link FenceBlocker}: the dying worker waits inside MySQL for a
 * fence row this test holds, so "where it was killed" is a fact, not a timing guess. Cases share one
 * world; each starts from reads switched and writes not (the validator, like Vitess, wants reads
 * before writes) and puts it back with a ReverseTraffic of writes by the surviving worker.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkerKilledInCriticalSectionTest {
  private static final Logger log = LoggerFactory.getLogger(WorkerKilledInCriticalSectionTest.class);
  @AutoClose
  private static ProcessWorld world;
  /** The worker polling between cases; each case kills it and the next case starts from its successor. */
  private static WorkerProcess polling;
  private static long nextCustomerId = 3_000_000;

  /** Where the first worker dies, and which primary's fence holds it there. */
  enum KillPoint {
    /** The topology already denies writes on the source; the source's write barrier is not up yet. */
    STOP_SOURCE_WRITES(SOURCE, "0", false),
    /**
     * Source writes stopped, positions gathered, streams caught up; about to stop the target's
     * streams (the other shard's stream is stopped already).
     */
    WAIT_FOR_CATCHUP(TARGET, "-80", true),
    /** Past the point of no return: the journal is written; target writes not allowed yet, routing unchanged. */
    AFTER_CREATE_JOURNALS(TARGET, "-80", true);

    final String keyspace;
    final String shard;
    /**
     * Whether only finishing the switch is acceptable: past the journal always; in waitForCatchup
     * too, since the replacement restarts the streams the dead pass stopped for cutover and catches
     * up (it used to roll back: the barrier's own fence write had moved the source past them).
     */
    final boolean mustFinish;

    KillPoint(String keyspace, String shard, boolean mustFinish) {
      this.keyspace = keyspace;
      this.shard = shard;
      this.mustFinish = mustFinish;
    }

    /**
     * Whether a worker waiting at a fenced change on this point's primary, with the world in
     * {@code seen}, is where this point kills it. The fenced changes before it are let through
     * one by one rather than counted: how many a step makes is its own business (preparing the
     * barrier before the locks makes one per trigger it creates), what the outside sees is not.
     */
    boolean isAt(Seen seen) {
      return switch (this) {
        case STOP_SOURCE_WRITES -> seen.sourceDenied() && !seen.barrierUp();
        case WAIT_FOR_CATCHUP -> seen.barrierUp() && !seen.journal();
        case AFTER_CREATE_JOURNALS -> seen.journal();
      };
    }
  }

  /** What the outside sees of a switch held at a fence. */
  record Seen(boolean sourceDenied, boolean barrierUp, boolean journal) {
    static Seen now() throws Exception {
      boolean sourceDenied = !world.store().getRequired(world.store().keys().shard(SOURCE, "0")).value()
          .deniedTables(TabletType.PRIMARY).isEmpty();
      boolean barrierUp = !world.services.barrier().deniedTables(world.primary(SOURCE, "0")).isEmpty();
      return new Seen(sourceDenied, barrierUp, world.journalWritten());
    }
  }

  /** Fenced changes a switch makes on one primary before any kill point, with room to spare. */
  private static final int MAX_PASSES = 64;

  /** The same cases on the real Temporal server when the class run is {@link WorkerKilledOnRealTemporalTest}. */
  @BeforeAll
  static void up(TestInfo test) throws Exception {
    world = ProcessWorld.start(test.getTestClass().filter(WorkerKilledOnRealTemporalTest.class::isAssignableFrom)
        .isPresent());
    polling = world.startWorkerAndSwitchReads();
  }

  @AfterEach
  void noLocksLeft() throws Exception {
    assertThat(world.switchLockKeys()).as("lock keys left behind").isEmpty();
  }

  @ParameterizedTest
  @Order(1)
  @EnumSource(KillPoint.class)
  void aSwitchWhoseWorkerIsKilledInTheCriticalSectionIsFinishedOrRolledBackByTheNext(KillPoint point)
      throws Exception {
    killedAt(point, ProcessWorld.writesOnly());
  }

  /**
   * The same kill where the replacement's replay of the critical section starts with a canSwitch
   * that must refuse: the dead worker stopped a target stream, whose lag grows past the allowed 5 s
   * while the replacement takes over. canSwitch's answer is now in the history before the first
   * change (an activity, or since Versions.LOCAL_CHECKS a local one recorded by the task that
   * schedules the next activity), so the replacement does not ask again (when it did, a refusal left
   * writes stopped on the source with nothing registered to undo it).
   */
  @Test
  @Order(Integer.MAX_VALUE)
  void aReplacementWhoseCanSwitchRefusesStillEndsInADefinedState() throws Exception {
    killedAt(KillPoint.WAIT_FOR_CATCHUP,
        ProcessWorld.writesOnly().withMaxReplicationLagAllowed(Duration.ofSeconds(5)));
  }

  private void killedAt(KillPoint point, SwitchTrafficRequest request) throws Exception {
    long started = System.nanoTime();
    world.assertDefinedState("READS_SWITCHED");
    SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    try (RouterLoad load = RouterLoad.start(world.router(), nextCustomerId)) {
      nextCustomerId += 1_000_000;
      WorkerProcess a = polling;
      try (FenceBlocker fence = FenceBlocker.hold(world, point.keyspace, point.shard)) {
        WorkflowClient.start(wf::switchTraffic, request);
        assertReached(point, passUntil(point, fence));
        assertThat(world.switchLockKeys()).as("the locks the dying worker holds").hasSize(3);
        a.kill();
        polling = null;
      }
      // A's last statement may still be queued for the fence row; freed, it runs in a transaction
      // that nobody can commit any more, and the server rolls it back with A's dead connection.
      WorkerProcess b = world.startWorker();
      polling = b;

      Outcome outcome = Outcome.of(stub);
      log.info("{}: after the kill the switch {}; steps: {}", point, outcome, Outcome.steps(wf.progress()));
      if (point.mustFinish) {
        assertThat(outcome.switched()).as(point + ": the replacement must finish the switch: " + outcome
            + world.workerLogs()).isTrue();
      }
      if (outcome.switched()) {
        assertThat(outcome.result().currentState()).isEqualTo(ProcessWorld.ALL_SWITCHED);
        world.assertDefinedState("ALL_SWITCHED");
        assertThat(world.routedToSource()).isFalse();
      } else {
        world.assertDefinedState("READS_SWITCHED");
        assertThat(outcome.failure()).as(world.workerLogs()).contains("rolled back");
        assertThat(world.routedToSource()).isTrue();
        world.awaitForwardStreamsRunning();
      }
      assertThat(world.switchLockKeys()).as("locks released at the end").isEmpty();
      List<StepProgress> steps = wf.progress().steps();
      if (outcome.switched()) {
        assertThat(steps).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
      }
      load.awaitMoreAcknowledged();
      load.stopAndVerify("a switch whose worker was killed at " + point);
      if (outcome.switched()) {
        world.reverseWrites();
      }
    }

    world.assertDefinedState("READS_SWITCHED");
    log.info("{} took {} ms", point, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /** Lets the worker's fenced changes on the point's primary through until it waits at the point. */
  private static Seen passUntil(KillPoint point, FenceBlocker fence) throws Exception {
    List<Seen> passed = new ArrayList<>();
    awaitWaiting(fence);
    Seen seen;
    for (seen = Seen.now(); !point.isAt(seen); seen = Seen.now()) {
      if (passed.size() == MAX_PASSES) {
        throw new AssertionError(point + " not reached after " + MAX_PASSES + " fenced changes on " + point.keyspace
            + "/" + point.shard + "; seen at each: " + passed + world.workerLogs());
      }
      passed.add(seen);
      fence.passOne();
      awaitWaiting(fence);
    }
    log.info("{}: let {} fenced changes on {}/{} through first", point, passed.size(), point.keyspace, point.shard);
    return seen;
  }

  private static void awaitWaiting(FenceBlocker fence) {
    try {
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(fence::someoneWaits);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the worker never waited for the fence\n" + fence.diagnostics() + world.workerLogs(), e);
    }
  }

  /** What else must hold where the point was reached; a wrong one means the fence stopped another step. */
  private static void assertReached(KillPoint point, Seen seen) throws Exception {
    log.info("{} reached: {}", point, seen);
    switch (point) {
      case STOP_SOURCE_WRITES, WAIT_FOR_CATCHUP -> assertThat(seen.journal()).as("journal written").isFalse();
      case AFTER_CREATE_JOURNALS -> {
        assertThat(seen.barrierUp()).as("source barrier up").isTrue();
        assertThat(world.routedToSource()).as("routing still points at the source").isTrue();
      }
    }
  }
}
