package io.pointsman.bench;

import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.Services;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The baseline of the cost of durability: the write switch of {@code SwitchTraffic} and
 * {@code ReverseTraffic}, the same activity implementations in the same order as the workflow runs
 * them on its happy path, called directly in this process — no Temporal, no history, no heartbeats;
 * the locks renew themselves as the lock service always does. It has no compensation and no
 * recovery: what it measures is the work a switch cannot avoid.
 */
final class DirectSwitch {
  /** SwitchTraffic's default --timeout, which bounds the drain and the catch-up as in the workflow. */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration MAX_LAG = Duration.ofSeconds(30);

  private final Services services;
  private final SwitchActivitiesImpl steps;

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
    MigrationInfo info = timed(timings, "buildTrafficSwitcher", () -> steps.buildTrafficSwitcher(targetKeyspace,
        workflow));
    WorkflowState state = timed(timings, "getWorkflowState", () -> steps.getWorkflowState(info, List.of()));
    boolean forward = direction == Direction.FORWARD;
    if (state.writesSwitched() == forward) {
      throw new IllegalStateException("writes of " + info.qualifiedName() + " are already "
          + (forward ? "switched" : "on the source") + ": " + state.summary());
    }
    MigrationInfo w = forward ? info : timed(timings, "buildTrafficSwitcher",
        () -> steps.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow()));
    List<HeldLock> held = new ArrayList<>();
    try {
      long lockStart = System.nanoTime();
      held.add(services.locks().lockNamed(Pointsman.namedLock(targetKeyspace, workflow), options(lockTtl)));
      Set<String> keyspaces = new LinkedHashSet<>(info.keyspaces());
      keyspaces.addAll(w.keyspaces());
      for (String ks : keyspaces.stream().sorted().toList()) {
        held.add(services.locks().lockKeyspace(ks, options(lockTtl)));
      }
      timings.add(new StepTiming("acquireLocks", lockStart, System.nanoTime()));
      LockSet locks = new LockSet(held.stream().map(HeldLock::token).toList());

      String reason = timed(timings, "canSwitch", () -> steps.canSwitch(w, MAX_LAG));
      if (!reason.isEmpty()) {
        throw new IllegalStateException("cannot switch " + w.qualifiedName() + ": " + reason);
      }
      run(timings, "prepareSourceWrites", () -> steps.prepareSourceWrites(w, "bench direct switch", TIMEOUT, locks));
      timed(timings, "checkJournals", () -> steps.checkJournals(w));
      run(timings, "stopSourceWrites", () -> steps.stopSourceWrites(w, TIMEOUT, locks));
      Map<String, String> sourcePositions = timed(timings, "gatherSourcePositions",
          () -> steps.gatherSourcePositions(w));
      Map<String, String> targetPositions = timed(timings, "waitForCatchup",
          () -> steps.waitForCatchup(w, sourcePositions, TIMEOUT, locks));
      List<SavedStream> saved = timed(timings, "readReverseStreams", () -> steps.readReverseStreams(w));
      if (saved == null) {
        throw new IllegalStateException("readReverseStreams returned nothing");
      }
      run(timings, "createReverseVReplication", () -> steps.createReverseVReplication(w, targetPositions, locks));
      run(timings, "createJournals", () -> steps.createJournals(w, sourcePositions, targetPositions, List.of(), locks));
      run(timings, "allowTargetWrites", () -> steps.allowTargetWrites(w, locks));
      run(timings, "changeRouting", () -> steps.changeRouting(w, locks));
      run(timings, "startReverseVReplication", () -> steps.startReverseVReplication(w, locks));
      run(timings, "freezeTargetVReplication", () -> steps.freezeTargetVReplication(w, locks));
    } finally {
      long releaseStart = System.nanoTime();
      for (int i = held.size() - 1; i >= 0; i--) {
        held.get(i).close();
      }
      timings.add(new StepTiming("releaseLocks", releaseStart, System.nanoTime()));
    }
    timed(timings, "getWorkflowState", () -> steps.getWorkflowState(info, List.of()));
    return new SwitchRun(Report.DIRECT, direction, start, System.nanoTime(), timings, "");
  }

  private static LockOptions options(Duration ttl) {
    return LockOptions.builder().action("bench direct switch").ttl(ttl).build();
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
