package io.pointsman.e2e.process;

import static io.pointsman.e2e.process.ProcessWorld.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S7 of docs/failure-scenarios.md §2, clock jumps, where they meet S10: the worker holding the locks
 * dies in the write switch and the worker that takes over reads the time of day an hour ahead (a
 * host whose clock NTP has not yet stepped back, or stepped wrongly). A lock's max hold counted on
 * two different wall clocks would look an hour old to the new worker, past its ten minutes: the
 * locks would be dropped as lost and the switch rolled back for nothing. Counted on the Temporal
 * server's clock, which both workers share, the new worker takes the locks over and finishes.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class WorkerClockSkewTest {
  private static final Logger log = LoggerFactory.getLogger(WorkerClockSkewTest.class);
  @AutoClose
  private static ProcessWorld world;
  /** What holdLocks logs once it attached to every lock. */
  private static final String HOLDING = "Holding 3 locks for workflow";
  /** What attach says when it finds a lock older than its max hold. */
  private static final String HELD_TOO_LONG = "longer ago than its max hold";
  /** The worker with the machine's clock, which takes the locks and dies holding them. */
  private static WorkerProcess a;

  @BeforeAll
  static void up() throws Exception {
    // On the real dev server: the SDK's test server refuses a workflow task during which holdLocks, ended by
    // the local revoke in the same worker, reported its end (Expired workflow task), and the re-run chain then
    // finds its leases revoked and takes the locks again, which this test asserts never happens
    world = ProcessWorld.start(true);
    a = world.startWorkerAndSwitchReads();
  }

  @Test
  void aWorkerWhoseClockIsAnHourAheadTakesOverTheLocksOfAKilledOneAndFinishesTheSwitch() throws Exception {
    SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    try (RouterLoad load = RouterLoad.start(world.router(), 5_000_000)) {
      try (FenceBlocker fence = FenceBlocker.hold(world, TARGET, "-80")) {
        WorkflowClient.start(wf::switchTraffic, ProcessWorld.writesOnly());
        // A waits inside the critical section, in waitForCatchup, holding the three locks
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(fence::someoneWaits);
        assertThat(world.switchLockKeys()).hasSize(3);
        a.kill();
        WorkerProcess b = world.startWorker(SkewedClock.env("+1h"));
        awaitClockAhead(b, Duration.ofMinutes(55));
        // B re-runs the critical section up to the same fence; the fence stays shut until B's holdLocks
        // has had its say on A's locks, or A's leases (alive until their TTL) would carry the switch
        // to its end before anyone attached to them.
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
            .until(() -> b.logged(HOLDING) || b.logged(HELD_TOO_LONG));
        assertThat(b.logged(HELD_TOO_LONG)).as("B counted the max hold on its own clock:\n" + b.tail(30)).isFalse();
      }

      Outcome outcome = Outcome.of(stub);
      List<StepProgress> steps = wf.progress().steps();
      log.info("after the kill the switch {}; steps: {}", outcome, Outcome.steps(wf.progress()));
      assertThat(outcome.switched()).as("B must finish the switch: " + outcome + world.workerLogs()).isTrue();
      assertThat(steps).filteredOn(s -> s.name().equals("acquireLocks"))
          .as("the locks A took were taken over, never dropped and taken again").hasSize(1);
      assertThat(steps).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
      world.assertDefinedState("ALL_SWITCHED");
      assertThat(world.switchLockKeys()).as("locks released at the end").isEmpty();
      load.awaitMoreAcknowledged();
      load.stopAndVerify("a switch taken over by a worker whose clock is an hour ahead");
    }
  }

  /** B's own log says what time it thinks it is: its first line's timestamp, against ours. */
  private static void awaitClockAhead(WorkerProcess b, Duration atLeast) {
    String first = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> b.tail(Integer.MAX_VALUE).lines().filter(l -> l.matches("^\\d{4}-\\d{2}-\\d{2}T.*"))
            .findFirst().orElse(null), line -> line != null);
    Instant stamped = OffsetDateTime.parse(first.substring(0, first.indexOf(' '))).toInstant();
    Duration ahead = Duration.between(Instant.now(), stamped);
    log.info("{} logs {} ahead of this JVM", b.name(), ahead);
    assertThat(ahead).as("%s's clock, from its log line: %s", b.name(), first).isGreaterThan(atLeast);
  }
}
