package io.pointsman.bench;

import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.Services;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The baseline of the cost of durability: the write switch of {@code SwitchTraffic} and
 * {@code ReverseTraffic}, the same activity implementations in the same order as the workflow runs
 * them on its happy path, called directly in this process — no Temporal, no history, no heartbeats;
 * the locks renew themselves as the lock service always does. Like the workflow it reads the
 * workflow again under the locks, checks reverse replication, plans sequences and a Reshard's
 * stream migration, prepares the barrier, takes the shard locks, binds the window to the planned
 * primaries and stamps each step's locks with a fence epoch of its own. It has no compensation and
 * no recovery: what it measures is the work a switch cannot avoid.
 */
final class DirectSwitch {
  /** SwitchTraffic's default --timeout, which bounds the drain and the catch-up as in the workflow. */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration MAX_LAG = Duration.ofSeconds(30);
  private static final String OWNER = "bench direct switch";

  private final Services services;
  private final SwitchActivitiesImpl steps;
  /** Steps stamped so far, for the fence epochs. */
  private long stamps;

  DirectSwitch(Services services) {
    this.services = services;
    this.steps = new SwitchActivitiesImpl(services);
  }

  /**
   * Switches the writes of {@code targetKeyspace.workflow} toward the target ({@link Direction#FORWARD},
   * SwitchTraffic) or back to the source (ReverseTraffic, by switching the reverse workflow).
   */
  SwitchRun switchWrites(String targetKeyspace, String workflow, Direction direction, Duration lockTtl) {
    List<StepTiming> timings = new ArrayList<>();
    long start = System.nanoTime();
    long startMillis = System.currentTimeMillis();
    boolean forward = direction == Direction.FORWARD;
    Switched before = switched(timings, targetKeyspace, workflow, forward);
    List<HeldLock> held = new ArrayList<>();
    try {
      long lockStart = System.nanoTime();
      held.add(services.locks().lockNamed(Pointsman.namedLock(targetKeyspace, workflow), options(lockTtl)));
      for (String ks : before.switched().keyspaces()) {
        held.add(services.locks().lockKeyspace(ks, options(lockTtl)));
      }
      timings.add(new StepTiming("acquireLocks", lockStart, System.nanoTime()));
      // Decided again under the locks, as the workflow does.
      MigrationInfo w = switched(timings, targetKeyspace, workflow, forward).switched();
      String reason = timed(timings, "canSwitch", () -> steps.canSwitch(w, MAX_LAG));
      if (!reason.isEmpty()) {
        throw new IllegalStateException("cannot switch " + w.qualifiedName() + ": " + reason);
      }
      String reverse = timed(timings, "checkReverseReplication", () -> steps.checkReverseReplication(w, List.of()));
      if (!reverse.isEmpty()) {
        throw new IllegalStateException("cannot switch " + w.qualifiedName() + ": " + reverse);
      }
      StreamMigration migration = w.migrationType() == MigrationType.SHARDS
          ? timed(timings, "planStreamMigration", () -> steps.planStreamMigration(w)) : StreamMigration.NONE;
      SequencePlan sequences = w.migrationType() == MigrationType.TABLES
          ? timed(timings, "planSequences", () -> steps.planSequences(w, false)) : SequencePlan.NONE;
      run(timings, "prepareSourceWrites", () -> steps.prepareSourceWrites(w, OWNER, TIMEOUT, stamped(held)));
      // read where the workflow reads it, for the undo that this executor does not have
      timed(timings, "readReverseStreams", () -> steps.readReverseStreams(w));
      long shardStart = System.nanoTime();
      for (String shard : w.sourceShards()) {
        held.add(services.locks().lockShard(w.sourceKeyspace(), shard, options(lockTtl)));
      }
      for (String shard : w.targetShards()) {
        held.add(services.locks().lockShard(w.targetKeyspace(), shard, options(lockTtl)));
      }
      timings.add(new StepTiming("acquireShardLocks", shardStart, System.nanoTime()));
      MigrationInfo f = timed(timings, "planPrimaries", () -> steps.planPrimaries(w));
      if (timed(timings, "checkJournals", () -> steps.checkJournals(f))) {
        throw new IllegalStateException("a journal of " + w.qualifiedName() + " exists already");
      }
      run(timings, "stopSourceWrites", () -> steps.stopSourceWrites(f, TIMEOUT, stamped(held)));
      StreamMigration stopped = migration.isEmpty() ? migration
          : timed(timings, "stopStreams", () -> steps.stopStreams(f, migration, TIMEOUT, stamped(held)));
      Map<String, String> sourcePositions = timed(timings, "gatherSourcePositions",
          () -> steps.gatherSourcePositions(f));
      Map<String, String> targetPositions = timed(timings, "waitForCatchup",
          () -> steps.waitForCatchup(f, sourcePositions, TIMEOUT, stamped(held)));
      if (!stopped.isEmpty()) {
        run(timings, "migrateStreams", () -> steps.migrateStreams(f, stopped, stamped(held)));
      }
      if (sequences.resetSourceSequences()) {
        run(timings, "resetSequences", () -> steps.resetSequences(f, stamped(held)));
      }
      run(timings, "createReverseVReplication", () -> steps.createReverseVReplication(f, targetPositions,
          stamped(held)));
      run(timings, "createJournals", () -> steps.createJournals(f, sourcePositions, targetPositions,
          stopped.workflows(), stamped(held)));
      run(timings, "allowTargetWrites", () -> steps.allowTargetWrites(f, stamped(held)));
      run(timings, "changeRouting", () -> steps.changeRouting(f, stamped(held)));
      run(timings, "startReverseVReplication", () -> steps.startReverseVReplication(f, stamped(held)));
      run(timings, "freezeTargetVReplication", () -> steps.freezeTargetVReplication(f, stamped(held)));
    } finally {
      long releaseStart = System.nanoTime();
      // as releaseLocks revokes them: all at once
      FanOut.forEach(held, HeldLock::close);
      timings.add(new StepTiming("releaseLocks", releaseStart, System.nanoTime()));
    }
    timed(timings, "getWorkflowState", () -> steps.getWorkflowState(before.named(), List.of()));
    return new SwitchRun(Report.DIRECT, direction, start, startMillis, System.nanoTime(), timings, "");
  }

  /**
   * @param named the workflow the switch was asked for
   * @param switched the workflow whose writes it moves: {@code named}, or its reverse for ReverseTraffic
   */
  private record Switched(MigrationInfo named, MigrationInfo switched) {}

  /** The workflows of a switch, after checking that the writes are where the direction says they start. */
  private Switched switched(List<StepTiming> timings, String targetKeyspace, String workflow, boolean forward) {
    MigrationInfo info = timed(timings, "buildTrafficSwitcher", () -> steps.buildTrafficSwitcher(targetKeyspace,
        workflow));
    WorkflowState state = timed(timings, "getWorkflowState", () -> steps.getWorkflowState(info, List.of()));
    if (state.writesSwitched() == forward) {
      throw new IllegalStateException("writes of " + info.qualifiedName() + " are already "
          + (forward ? "switched" : "on the source") + ": " + state.summary());
    }
    return new Switched(info, forward ? info : timed(timings, "buildTrafficSwitcher",
        () -> steps.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow())));
  }

  /**
   * The held locks stamped with a fence epoch of this step's own, higher than every earlier
   * step's, as the workflow stamps each step's locks: so each step raises the MySQL fence rows as
   * it does under Temporal.
   */
  private LockSet stamped(List<HeldLock> held) {
    return new LockSet(held.stream().map(HeldLock::token).toList()).stampedForStep(System.currentTimeMillis(),
        stamps++);
  }

  private static LockOptions options(Duration ttl) {
    return LockOptions.builder().action(OWNER).ttl(ttl).build();
  }

  private static <T> T timed(List<StepTiming> timings, String name, Supplier<T> step) {
    long start = System.nanoTime();
    T value = step.get();
    timings.add(new StepTiming(name, start, System.nanoTime()));
    return value;
  }

  private static void run(List<StepTiming> timings, String name, Runnable step) {
    timed(timings, name, () -> {
      step.run();
      return null;
    });
  }
}
