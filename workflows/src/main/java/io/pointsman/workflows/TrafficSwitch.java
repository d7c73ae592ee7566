package io.pointsman.workflows;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * SwitchTraffic and ReverseTraffic, step by step as Vitess orders them (docs/vitess-switching.md §2–§5), with the
 * locks held by a heartbeating activity, every mutation fenced, compensation registered before each
 * step, and the journal as the point of no return. ReverseTraffic of writes is a forward switch of
 * the {@code <workflow>_reverse} streams, as in Vitess; reads go back by the backward read switch.
 */
final class TrafficSwitch {
  private static final Logger log = Workflow.getLogger(TrafficSwitch.class);
  /**
   * Version markers of changes to the commands a switch issues, so runs started before a change
   * replay as they ran (the histories in workflows' test resources are such runs).
   */
  static final String JOURNAL_READ_BACK = "journal-read-back-and-completed";
  static final String RESUME_UNFINISHED = "resume-unfinished-write-switch";
  static final String PLAN_UNDER_LOCKS = "plan-under-locks";

  private final String action;
  private final SwitchTrafficRequest request;
  private final Direction direction;
  private final ProgressTracker progress;
  /** Read-only steps before the locks are taken; nothing to race against. */
  private final Steps steps;
  private final Compensations compensations;
  private final SwitchActivities quick;
  /** The steps bounded by the request's timeout (the drain, the catch-up), with a minute to spare. */
  private final SwitchActivities withinTimeout;
  /** The critical section's steps as local activities (Versions.LOCAL_CRITICAL_SECTION). */
  private final SwitchActivities local;
  private final SwitchActivities localWithinTimeout;
  private boolean pastPointOfNoReturn;
  /** createJournals was started: from then on a failure may have left a journal behind. */
  private boolean journalAttempted;
  /** The positions the journal is written with, kept to write it again where it is missing. */
  private Map<String, String> journalSourcePositions;
  private Map<String, String> journalTargetPositions;

  TrafficSwitch(String action, SwitchTrafficRequest request, Direction direction, ProgressTracker progress) {
    this.action = action;
    this.request = request;
    this.direction = direction;
    this.progress = progress;
    this.steps = new Steps(progress, null);
    this.compensations = new Compensations(progress);
    this.quick = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
    this.withinTimeout = Workflow.newActivityStub(SwitchActivities.class,
        StepOptions.step(request.timeout().plus(Duration.ofMinutes(1))));
    this.local = Workflow.newLocalActivityStub(SwitchActivities.class, StepOptions.local(Duration.ofMinutes(2)));
    this.localWithinTimeout = Workflow.newLocalActivityStub(SwitchActivities.class,
        StepOptions.localWithinTimeout(request.timeout()));
  }

  ActionResult run() {
    // The reads before the locks stay activities: a local one holds the workflow task open while it
    // runs, and queries (the CLI's live progress) wait for that task; they gain nothing from speed.
    progress.phase("reading state");
    MigrationInfo info = readInfo(steps, request.targetKeyspace() + "." + request.workflow());
    Plan plan = plan(info, readState(steps, info, "cells " + cellsText(request.cells())), steps);

    if (request.dryRun()) {
      return dryRun(plan);
    }

    LockRequest lockRequest = new LockRequest(Pointsman.namedLock(request.targetKeyspace(), request.workflow()),
        plan.keyspaces(), action, request.lockTtl(), request.maxLockHold());
    LockKeeper keeper = new LockKeeper(lockRequest, progress);
    // Where the critical section runs: local activities, or (runs started before that change) activities.
    SwitchActivities critical = Versions.localCriticalSection() ? local : quick;
    return new Run(keeper, new Steps(progress, keeper), critical).execute(plan);
  }

  /**
   * What this action switches, decided from a read of the workflow's state.
   *
   * @param w the workflow whose writes switch: the reverse one for ReverseTraffic of writes
   * @param reads each read tablet type with the cells it switches
   */
  private record Plan(MigrationInfo info, WorkflowState start, MigrationInfo w, List<ReadSwitch> reads,
      boolean switchWrites, boolean writesAlreadySwitched) {
    List<String> keyspaces() {
      return unionKeyspaces(info, w);
    }
  }

  private MigrationInfo readInfo(Steps via, String detail) {
    return via.run("buildTrafficSwitcher", detail,
        () -> quick.buildTrafficSwitcher(request.targetKeyspace(), request.workflow()));
  }

  private WorkflowState readState(Steps via, MigrationInfo info, String detail) {
    return via.run("getWorkflowState", detail, () -> quick.getWorkflowState(info, request.cells()));
  }

  private Plan plan(MigrationInfo info, WorkflowState start, Steps via) {
    boolean writesAlreadySwitched = direction == Direction.FORWARD ? start.writesSwitched() : !start.writesSwitched();
    boolean switchWrites = request.includesPrimary() && !writesAlreadySwitched;
    MigrationInfo writeInfo = info;
    if (switchWrites && direction == Direction.BACKWARD) {
      // Vitess reverses writes by switching the reverse workflow forward.
      writeInfo = via.run("buildTrafficSwitcher", info.sourceKeyspace() + "." + info.reverseWorkflow(),
          () -> quick.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow()));
    } else if (request.includesPrimary() && writesAlreadySwitched
        && Workflow.getVersion(RESUME_UNFINISHED, Workflow.DEFAULT_VERSION, 1) >= 1) {
      MigrationInfo unfinished = unfinishedWriteSwitch(info);
      if (unfinished != null) {
        writeInfo = unfinished;
        switchWrites = true;
      }
    }
    return new Plan(info, start, writeInfo, planReads(info, start), switchWrites, writesAlreadySwitched);
  }

  /**
   * A write switch that failed after changeRouting (routing already points the new way, but the
   * streams were not frozen, and the reverse streams perhaps not started): its state reads "writes
   * switched", so Vitess would skip the writes and leave it unfinished for good. A rerun resumes it
   * from its journal instead. Returns the switching workflow (the reverse one for ReverseTraffic), or
   * null when writes are switched for good, or for ReverseTraffic were never switched at all.
   */
  private MigrationInfo unfinishedWriteSwitch(MigrationInfo info) {
    MigrationInfo w = info;
    if (direction == Direction.BACKWARD) {
      try {
        // called directly: not finding it is the common answer, not a failed step
        w = quick.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow());
      } catch (ActivityFailure e) {
        if (ErrorCode.NOT_FOUND.name().equals(Failures.applicationType(e))) {
          return null;
        }
        throw e;
      }
    }
    if (w.frozen()) {
      return null;
    }
    MigrationInfo switching = w;
    boolean journaled = steps.run("checkJournals", "writes read as switched but " + w.qualifiedName()
        + " is not frozen: an unfinished switch?", () -> quick.checkJournals(switching));
    return journaled ? w : null;
  }

  /** One read tablet type and the cells whose reads this action changes. */
  private record ReadSwitch(String tabletType, List<String> cells) {}

  private List<ReadSwitch> planReads(MigrationInfo info, WorkflowState state) {
    List<ReadSwitch> out = new ArrayList<>();
    for (String type : request.readTabletTypes()) {
      List<String> switched = type.equals("REPLICA") ? state.replicaCellsSwitched() : state.rdonlyCellsSwitched();
      List<String> notSwitched =
          type.equals("REPLICA") ? state.replicaCellsNotSwitched() : state.rdonlyCellsNotSwitched();
      List<String> candidates = direction == Direction.FORWARD ? notSwitched : switched;
      List<String> cells = request.cells().isEmpty()
          ? candidates
          : candidates.stream().filter(request.cells()::contains).toList();
      out.add(new ReadSwitch(type, cells));
    }
    return out;
  }

  private ActionResult dryRun(Plan p) {
    MigrationInfo info = p.info();
    MigrationInfo w = p.w();
    WorkflowState start = p.start();
    progress.phase("dry run");
    SwitchPlan plan = new SwitchPlan();
    String named = Pointsman.namedLock(request.targetKeyspace(), request.workflow());
    List<String> keyspaces = p.keyspaces();
    plan.locks(named, keyspaces);
    for (ReadSwitch r : p.reads()) {
      if (r.cells().isEmpty()) {
        plan.readsAlreadySwitched(r.tabletType(), direction);
      } else {
        plan.reads(info, r.tabletType(), r.cells(), direction);
      }
    }
    if (p.switchWrites() && !w.frozen()) {
      ShardPositions now = steps.run("gatherPositions", "current positions for the plan",
          () -> quick.gatherPositions(w));
      plan.writes(w, now.source(), GoDurations.format(request.timeout()), request.enableReverseReplication());
    } else if (request.includesPrimary()) {
      plan.writesAlreadySwitched(w.frozen() ? "the workflow is frozen" : start.summary());
    }
    plan.unlocks(named, keyspaces);
    List<String> lines = plan.lines();
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + info.qualifiedName() + " at "
        + java.time.Instant.ofEpochMilli(Workflow.currentTimeMillis()), start.summary(), start.summary(), lines);
  }

  private static List<String> unionKeyspaces(MigrationInfo a, MigrationInfo b) {
    Set<String> all = new LinkedHashSet<>(a.keyspaces());
    all.addAll(b.keyspaces());
    return all.stream().sorted().toList();
  }

  private static String cellsText(List<String> cells) {
    return cells.isEmpty() ? "all" : String.join(",", cells);
  }

  /** One locked execution: everything that needs the locks and may need compensating. */
  private final class Run {
    private final LockKeeper keeper;
    private final Steps steps;
    /** Where the happy path's steps from checkJournals on run: local activities, or (older runs) activities. */
    private final SwitchActivities critical;
    private final SwitchActivities criticalWithinTimeout;
    /** What this run switches: first as read before the locks, then as read under them. */
    private Plan plan;

    Run(LockKeeper keeper, Steps steps, SwitchActivities critical) {
      this.keeper = keeper;
      this.steps = steps;
      this.critical = critical;
      this.criticalWithinTimeout = critical == local ? localWithinTimeout : withinTimeout;
    }

    ActionResult execute(Plan planned) {
      plan = planned;
      try {
        progress.phase("locking");
        keeper.acquire();
        if (Workflow.getVersion(PLAN_UNDER_LOCKS, Workflow.DEFAULT_VERSION, 1) >= 1) {
          plan = planUnderTheLocks(planned);
        }
        MigrationInfo w = plan.w();
        if (!plan.writesAlreadySwitched()) {
          progress.phase("pre-checks");
          // An activity even when the critical section is local: a replacement worker re-running the
          // chain would otherwise re-ask, and a refusal then (lag grows while the dead worker's
          // streams stand still) would leave whatever the dead pass changed with nothing to undo it.
          String reason = steps.run("canSwitch", "max lag " + GoDurations.format(request.maxReplicationLagAllowed()),
              () -> quick.canSwitch(w, request.maxReplicationLagAllowed()));
          if (reason != null && !reason.isEmpty()) {
            throw ApplicationFailure.newNonRetryableFailure("cannot switch traffic for workflow "
                + w.qualifiedName() + " at this time: " + reason, ErrorCode.FAILED_PRECONDITION.name());
          }
        }
        switchReads(plan.info(), plan.reads());
        if (plan.switchWrites()) {
          switchWrites(w);
        }
        progress.phase("done");
      } catch (LockLostSignal lost) {
        // Re-acquiring and compensating must not be cut short by a cancellation arriving meanwhile.
        Workflow.newDetachedCancellationScope(() -> recoverFromLockLoss(plan.w(), lost)).run();
        if (CancellationScope.current().isCancelRequested()) {
          throw new CanceledFailure("the workflow was cancelled; " + action + " finished the switch under new locks");
        }
      } catch (RuntimeException failure) {
        // A cancellation arrives as the CanceledFailure of a step's wait, or as an ActivityFailure
        // caused by one when an activity was called directly; the scope tells them apart from a
        // failure reliably. A cancelled switch is undone before the journal and finished after it.
        boolean cancelled = CancellationScope.current().isCancelRequested();
        String why = cancelled ? "the workflow was cancelled" : Failures.message(failure);
        try {
          Workflow.newDetachedCancellationScope(() -> {
            settlePointOfNoReturn(plan.w());
            if (cancelled || !pastPointOfNoReturn) {
              undoOrFinish(plan.w(), why);
            }
          }).run();
        } finally {
          keeper.release();
        }
        if (cancelled) {
          throw failure instanceof CanceledFailure c ? c : new CanceledFailure(why + ": " + Failures.message(failure));
        }
        throw failure(failure);
      }
      keeper.release();
      MigrationInfo info = plan.info();
      return new ActionResult(action + " was successful for workflow " + info.qualifiedName(),
          plan.start().summary(), stateAfter(info), List.of());
    }

    /**
     * Read-only, and after the release: must not race the locks just given back. The switch is done
     * by then, so a read that fails for good (etcd away past its retries) leaves the state unknown
     * in the result rather than reporting the switch itself as failed.
     */
    private String stateAfter(MigrationInfo info) {
      try {
        return TrafficSwitch.this.steps.run("getWorkflowState", "state after " + action,
            () -> quick.getWorkflowState(info, request.cells())).summary();
      } catch (ActivityFailure e) {
        if (Failures.isCancellation(e)) {
          throw e;
        }
        log.warn("{} finished, but its state could not be read after it: {}", action, Failures.message(e));
        return "unknown (could not be read after " + action + ": " + Failures.message(e) + ")";
      }
    }

    /**
     * The plan was made from reads before the locks, and another action may have switched the
     * workflow while this one waited for them (a second run of it under another workflow id, which
     * the id conflict policy does not stop): it would then run steps on a stale plan, or refuse a
     * switch that is already done. So read again under the locks, and when anything changed decide
     * anew from what is there, as a run started after the other would.
     */
    private Plan planUnderTheLocks(Plan before) {
      MigrationInfo info = readInfo(steps, "again under the locks");
      WorkflowState now = readState(steps, info, "again under the locks");
      if (info.equals(before.info()) && now.equals(before.start())) {
        return before;
      }
      progress.phase("re-planning: the workflow changed while waiting for the locks");
      Plan after = plan(info, now, steps);
      log.info("{}: {} changed while waiting for the locks, from {} to {}", action, info.qualifiedName(),
          before.start().summary(), after.start().summary());
      if (!after.keyspaces().equals(before.keyspaces())) {
        throw ApplicationFailure.newNonRetryableFailure("the keyspaces of workflow " + info.qualifiedName()
            + " changed while waiting for their locks, from " + before.keyspaces() + " to " + after.keyspaces()
            + "; nothing was changed", ErrorCode.FAILED_PRECONDITION.name());
      }
      return after;
    }

    private void switchReads(MigrationInfo info, List<ReadSwitch> reads) {
      for (ReadSwitch r : reads) {
        if (r.cells().isEmpty()) {
          continue;
        }
        progress.phase("switching reads");
        String detail = r.tabletType() + " in cells " + r.cells() + " → "
            + (direction == Direction.FORWARD ? info.targetKeyspace() : info.sourceKeyspace());
        compensations.add("switchReads", "switchReads", r.tabletType() + " back in cells " + r.cells(),
            () -> quick.switchReads(info, List.of(r.tabletType()), r.cells(), direction.reversed(), keeper.locks()));
        steps.run("switchReads", detail,
            () -> quick.switchReads(info, List.of(r.tabletType()), r.cells(), direction, keeper.locks()));
      }
    }

    private void switchWrites(MigrationInfo w) {
      progress.phase("switching writes");
      if (w.frozen()) {
        log.info("workflow {} is frozen: writes were already switched", w.qualifiedName());
        return;
      }
      // A local chain is recorded only when its workflow task completes; a worker that dies before
      // leaves it unrecorded, and the next one runs it again from checkJournals against what the
      // dead pass changed. So what its undo needs is read by an activity, recorded, before it, and
      // checkJournals opens it (a dead pass may have written the journal).
      boolean localChain = critical == local;
      List<SavedStream> savedFirst = localChain ? readReverseStreams(w, quick) : null;
      boolean journaled = steps.run("checkJournals", "migration id " + w.migrationId(),
          () -> critical.checkJournals(w));
      Map<String, String> sourcePositions;
      Map<String, String> targetPositions;
      if (!journaled) {
        compensations.add("stopSourceWrites", "allowSourceWrites", "writes allowed on " + w.sourceKeyspace() + " again",
            () -> quick.allowSourceWrites(w, keeper.locks()));
        if (localChain) {
          // Every undo before the first change: a re-run failing early must also undo what the dead
          // pass did later in the chain; each undo is harmless where its step never ran.
          compensations.addAhead("waitForCatchup", "restartStreams", "streams of " + w.workflow() + " running again",
              () -> quick.restartStreams(w, keeper.locks()));
          compensations.addAhead("createReverseVReplication", "restoreReverseVReplication",
              w.reverseWorkflow() + " as it was (" + savedFirst.size() + " rows)",
              () -> quick.restoreReverseVReplication(w, savedFirst, keeper.locks()));
        }
        steps.run("stopSourceWrites", "deny writes on " + w.sourceKeyspace() + " " + w.sourceShards(),
            () -> criticalWithinTimeout.stopSourceWrites(w, request.timeout(), keeper.locks()));
        sourcePositions = steps.run("gatherSourcePositions", "after the barrier",
            () -> critical.gatherSourcePositions(w));
        if (localChain) {
          compensations.starting("waitForCatchup");
        } else {
          compensations.add("waitForCatchup", "restartStreams", "streams of " + w.workflow() + " running again",
              () -> quick.restartStreams(w, keeper.locks()));
        }
        targetPositions = steps.run("waitForCatchup", "up to " + GoDurations.format(request.timeout()),
            () -> criticalWithinTimeout.waitForCatchup(w, sourcePositions, request.timeout(), keeper.locks()));
        if (localChain) {
          compensations.starting("createReverseVReplication");
        } else {
          List<SavedStream> saved = readReverseStreams(w, quick);
          compensations.add("createReverseVReplication", "restoreReverseVReplication",
              w.reverseWorkflow() + " as it was (" + saved.size() + " rows)",
              () -> quick.restoreReverseVReplication(w, saved, keeper.locks()));
        }
        steps.run("createReverseVReplication", w.reverseWorkflow() + " Stopped from the target positions",
            () -> critical.createReverseVReplication(w, targetPositions, keeper.locks()));
      } else {
        ShardPositions now = steps.run("gatherPositions", "resuming after the journal",
            () -> critical.gatherPositions(w));
        sourcePositions = now.source();
        targetPositions = now.target();
      }
      // The point of no return: once a journal row exists the switch only goes forward, and a
      // rerun resumes here. Whether a failed createJournals wrote one is settled by reading it back.
      journalSourcePositions = sourcePositions;
      journalTargetPositions = targetPositions;
      journalAttempted = true;
      createJournals(w, "point of no return, migration id " + w.migrationId(), critical);
      pastPointOfNoReturn = true;
      compensations.clear();
      finishForward(w, critical);
    }

    private List<SavedStream> readReverseStreams(MigrationInfo w, SwitchActivities via) {
      return steps.run("readReverseStreams", w.reverseWorkflow() + " on " + w.sourceKeyspace(),
          () -> via.readReverseStreams(w));
    }

    private void createJournals(MigrationInfo w, String detail, SwitchActivities via) {
      Map<String, String> sources = journalSourcePositions;
      Map<String, String> targets = journalTargetPositions;
      steps.run("createJournals", detail, () -> via.createJournals(w, sources, targets, keeper.locks()));
    }

    /**
     * After a failure, cancellation or lost lock from createJournals on: a journal may have been
     * written on some sources although the step did not report success (it failed after an insert,
     * or its result was lost to a cancellation). Compensating then would reopen the sources under a
     * journal that a rerun trusts, so read the journals back; when that read fails too, assume the
     * worst and only go forward. Runs detached from cancellation; read-only, so without the locks.
     */
    private void settlePointOfNoReturn(MigrationInfo w) {
      if (!journalAttempted || pastPointOfNoReturn
          || Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) < 1) {
        return;
      }
      boolean journaled;
      try {
        journaled = TrafficSwitch.this.steps.run("checkJournals", "did createJournals write before it stopped?",
            () -> quick.checkJournals(w));
      } catch (RuntimeException e) {
        log.warn("{}: cannot tell whether a journal was written, treating it as written: {}", action,
            Failures.message(e));
        journaled = true;
      }
      if (journaled) {
        pastPointOfNoReturn = true;
        compensations.clear();
      }
    }

    /**
     * The idempotent steps after the journal; {@code via} runs them as local activities on the happy
     * path, as activities when finishing after a failure.
     */
    private void finishForward(MigrationInfo w, SwitchActivities via) {
      progress.phase("past the point of no return");
      steps.run("allowTargetWrites", "writes allowed on " + w.targetKeyspace(),
          () -> via.allowTargetWrites(w, keeper.locks()));
      steps.run("changeRouting", w.sourceKeyspace() + " → " + w.targetKeyspace(),
          () -> via.changeRouting(w, keeper.locks()));
      if (request.enableReverseReplication()) {
        steps.run("startReverseVReplication", w.reverseWorkflow(),
            () -> via.startReverseVReplication(w, keeper.locks()));
      }
      steps.run("freezeTargetVReplication", w.workflow() + " FROZEN",
          () -> via.freezeTargetVReplication(w, keeper.locks()));
    }

    /**
     * Lock lost mid-switch: take the locks again, then undo (before the journal) or finish (after
     * it). Runs in a detached scope.
     */
    private void recoverFromLockLoss(MigrationInfo w, LockLostSignal lost) {
      log.warn("{}: {}", action, lost.getMessage());
      progress.phase("re-acquiring locks");
      try {
        keeper.reacquire();
      } catch (RuntimeException e) {
        keeper.release();
        throw ApplicationFailure.newNonRetryableFailure(lost.getMessage() + "; re-acquiring the locks failed: "
            + Failures.message(e) + ". Nothing was undone; rerun " + action + " to finish the switch from where it"
            + " stopped.", ErrorCode.LOCK_LOST.name());
      }
      try {
        settlePointOfNoReturn(w);
        undoOrFinish(w, lost.getMessage());
      } finally {
        keeper.release();
      }
      if (!pastPointOfNoReturn) {
        throw ApplicationFailure.newNonRetryableFailure(
            lost.getMessage() + "; the switch was rolled back under new locks", ErrorCode.LOCK_LOST.name());
      }
    }

    /** Runs in a detached scope, under the (possibly re-acquired) locks. */
    private void undoOrFinish(MigrationInfo w, String why) {
      if (pastPointOfNoReturn) {
        progress.phase("finishing after the point of no return");
        for (int attempt = 1; ; attempt++) {
          try {
            if (journalSourcePositions != null
                && Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) >= 1) {
              // idempotent: writes the journal only on sources that lack it (a createJournals cut short)
              createJournals(w, "ensuring every source has the journal", quick);
            }
            finishForward(w, quick);
            return;
          } catch (LockLostSignal again) {
            if (attempt >= 3) {
              // A workflow must fail with a Temporal failure: anything else retries its task forever.
              throw ApplicationFailure.newNonRetryableFailure(again.getMessage() + "; the journal is written:"
                  + " rerun " + action + " to finish the switch.", ErrorCode.LOCK_LOST.name());
            }
            keeper.reacquire();
          }
        }
      }
      if (compensations.isEmpty()) {
        return;
      }
      progress.phase("compensating");
      log.info("{} compensating after: {}", action, why);
      List<String> failures = compensations.run(steps, keeper);
      if (!failures.isEmpty()) {
        throw ApplicationFailure.newNonRetryableFailure("compensation after '" + why + "' failed, manual cleanup may"
            + " be needed: " + String.join("; ", failures), ErrorCode.INTERNAL.name());
      }
      progress.phase("compensated");
    }

    private RuntimeException failure(RuntimeException e) {
      if (e instanceof ApplicationFailure) {
        return e;
      }
      String type = Failures.applicationType(e);
      String msg = Failures.message(e);
      msg = pastPointOfNoReturn
          ? msg + ". The journal is written: rerun " + action + " to finish the switch."
          : msg + ". Everything the switch changed was rolled back.";
      return ApplicationFailure.newNonRetryableFailure(msg, type == null ? ErrorCode.INTERNAL.name() : type);
    }
  }
}
