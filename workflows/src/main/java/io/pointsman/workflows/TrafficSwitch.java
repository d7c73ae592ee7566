package io.pointsman.workflows;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.workflows.SwitchPlanner.Plan;
import io.pointsman.workflows.SwitchPlanner.ReadSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * SwitchTraffic and ReverseTraffic, step by step as Vitess orders them (docs/vitess-switching.md §2–§5), with the
 * locks held by a heartbeating activity ({@link LockKeeper}), every mutation fenced, compensation
 * registered before each step, and the journal as the point of no return ({@link WriteSwitch}).
 * What to switch is decided by {@link SwitchPlanner}. ReverseTraffic of writes is a forward switch
 * of the {@code <workflow>_reverse} streams, as in Vitess; reads go back by the backward read switch.
 * This class holds the locked run itself: the pre-checks, the read switch, and what follows a
 * failure, a cancellation or a lost lock (undo before the journal, finish after it).
 */
final class TrafficSwitch extends LockedAction<Plan> {
  private static final Logger log = Workflow.getLogger(TrafficSwitch.class);
  /** Version marker: the plan is made again under the locks (LockedAction#decideAgain). */
  static final String PLAN_UNDER_LOCKS = "plan-under-locks";

  private final SwitchTrafficRequest request;
  private final Direction direction;
  private final SwitchPlanner planner;
  private final Compensations compensations;
  private final SwitchActivities quick = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  /** canSwitch in runs since Versions.LOCAL_CHECKS. */
  private final SwitchActivities checks = Workflow.newLocalActivityStub(SwitchActivities.class,
      StepOptions.localRead());
  /** The read of the state after the locks are given back. */
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  private WriteSwitch writes;
  /** This run's checks under the locks are local activities (Versions.LOCAL_CHECKS). */
  private boolean localChecks;

  TrafficSwitch(String action, SwitchTrafficRequest request, Direction direction, ProgressTracker progress) {
    super(action, progress, new RunSettings(request.dryRun(), request.lockTtl(), request.maxLockHold()));
    this.request = request;
    this.direction = direction;
    this.planner = new SwitchPlanner(action, request, direction, progress, unlocked);
    this.compensations = new Compensations(progress);
  }

  // The reads before the locks are local activities (Versions.LOCAL_READS): each spared a server
  // round trip, which cost several times the read itself. A local one holds the workflow task open
  // while it runs, so a query (the CLI's live progress) waits as long as the read, milliseconds;
  // a retry waits on a timer, outside the task (StepOptions.localRead).
  @Override
  protected Plan plan() {
    // vtctldclient offers the flag on MoveTables SwitchTraffic only; elsewhere Vitess ignores it
    if (request.initializeTargetSequences() && direction == Direction.BACKWARD) {
      throw sequencesRefused("ReverseTraffic of workflow " + request.targetKeyspace() + "." + request.workflow());
    }
    Plan p = planner.initial();
    if (request.initializeTargetSequences() && p.info().migrationType() != MigrationType.TABLES) {
      throw sequencesRefused("a Reshard (workflow " + p.info().qualifiedName() + ")");
    }
    return p;
  }

  private static ApplicationFailure sequencesRefused(String what) {
    return ApplicationFailure.newNonRetryableFailure("initializeTargetSequences applies to MoveTables SwitchTraffic"
        + " only (as in vtctldclient), not to " + what + "; nothing was changed", ErrorCode.INVALID_ARGUMENT.name());
  }

  @Override
  protected ActionResult dryRun(Plan plan) {
    return planner.dryRun(plan);
  }

  @Override
  protected LockRequest lockRequest(Plan plan) {
    return locksFor(Pointsman.namedLock(request.targetKeyspace(), request.workflow()), plan.keyspaces());
  }

  @Override
  protected void beforeLocking() {
    // Where the critical section runs: local activities, or (runs started before that change) activities.
    boolean localChain = Versions.localCriticalSection();
    localChecks = localChain && Versions.localChecks();
    writes = new WriteSwitch(action, request, progress, compensations, keeper, locked, unlocked, localChain,
        localChecks);
  }

  @Override
  protected String decideAgainChange() {
    return PLAN_UNDER_LOCKS;
  }

  @Override
  protected Plan decideAgain(Plan before) {
    return planner.again(before, locked);
  }

  @Override
  protected void act(Plan plan) {
    MigrationInfo w = plan.w();
    StreamMigration migration = StreamMigration.NONE;
    if (!plan.writesAlreadySwitched()) {
      progress.phase("pre-checks");
      migration = planner.planStreamMigration(plan, locked, x -> "again under the locks");
      // Its answer must be recorded before the first change: a replacement worker asking again
      // after a change it cannot see could be refused (lag grows while the dead worker's streams
      // stand still) and leave that change with nothing to undo it. An activity did that in older
      // runs; a local one does it too (Versions.LOCAL_CHECKS), since the task that runs it ends by
      // scheduling the first change, and its completion records both. The local reads before it
      // (Versions.LOCAL_READS) change nothing: re-running them is harmless.
      SwitchActivities asking = localChecks ? checks : quick;
      String reason = locked.run("canSwitch", "max lag " + GoDurations.format(request.maxReplicationLagAllowed()),
          () -> asking.canSwitch(w, request.maxReplicationLagAllowed()));
      if (reason != null && !reason.isEmpty()) {
        throw ApplicationFailure.newNonRetryableFailure("cannot switch traffic for workflow "
            + w.qualifiedName() + " at this time: " + reason, ErrorCode.FAILED_PRECONDITION.name());
      }
      // Before the reads switch, so a refusal leaves everything as it was (Vitess asks after them).
      planner.refuseReverseReplication(plan, locked);
    }
    switchReads(plan.info(), plan.reads());
    if (plan.switchWrites()) {
      writes.run(w, migration);
    }
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
      locked.run("switchReads", detail,
          () -> quick.switchReads(info, List.of(r.tabletType()), r.cells(), direction, keeper.locks()));
    }
  }

  @Override
  protected RuntimeException failed(RuntimeException failure, Plan plan) {
    if (failure instanceof LockLostSignal lost) {
      // Re-acquiring and compensating must not be cut short by a cancellation arriving meanwhile.
      Workflow.newDetachedCancellationScope(() -> recoverFromLockLoss(plan.w(), lost)).run();
      if (CancellationScope.current().isCancelRequested()) {
        return new CanceledFailure("the workflow was cancelled; " + action + " finished the switch under new locks");
      }
      return null;
    }
    // A cancellation arrives as the CanceledFailure of a step's wait, or as an ActivityFailure
    // caused by one when an activity was called directly; the scope tells them apart from a
    // failure reliably. A cancelled switch is undone before the journal and finished after it.
    boolean cancelled = CancellationScope.current().isCancelRequested();
    String why = cancelled ? "the workflow was cancelled" : Failures.message(failure);
    boolean[] finished = {false};
    Workflow.newDetachedCancellationScope(() -> {
      writes.settlePointOfNoReturn(plan.w());
      if (cancelled || !writes.pastPointOfNoReturn()) {
        undoOrFinish(plan.w(), why);
      } else if (PointOfNoReturn.keepFinishing()) {
        log.warn("{}: {} after the journal; finishing the switch", action, why);
        writes.finishAfterFailure(plan.w());
        finished[0] = true;
      }
    }).run();
    if (cancelled) {
      return failure instanceof CanceledFailure c ? c : new CanceledFailure(why + ": " + Failures.message(failure));
    }
    return finished[0] ? null : describe(failure);
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
      writes.settlePointOfNoReturn(w);
      undoOrFinish(w, lost.getMessage());
    } finally {
      keeper.release();
    }
    if (!writes.pastPointOfNoReturn()) {
      throw ApplicationFailure.newNonRetryableFailure(
          lost.getMessage() + "; the switch was rolled back under new locks", ErrorCode.LOCK_LOST.name());
    }
  }

  /** Runs in a detached scope, under the (possibly re-acquired) locks. */
  private void undoOrFinish(MigrationInfo w, String why) {
    if (writes.pastPointOfNoReturn()) {
      writes.finishAfterFailure(w);
      return;
    }
    if (compensations.isEmpty()) {
      return;
    }
    progress.phase("compensating");
    log.info("{} compensating after: {}", action, why);
    List<String> failures = compensations.run(locked, keeper);
    if (!failures.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("compensation after '" + why + "' failed, manual cleanup may"
          + " be needed: " + String.join("; ", failures), ErrorCode.INTERNAL.name());
    }
    progress.phase("compensated");
  }

  private RuntimeException describe(RuntimeException e) {
    if (e instanceof ApplicationFailure) {
      return e;
    }
    String type = Failures.applicationType(e);
    String msg = Failures.message(e);
    msg = writes.pastPointOfNoReturn()
        ? msg + ". The journal is written: rerun " + action + " to finish the switch."
        : msg + ". Everything the switch changed was rolled back.";
    return ApplicationFailure.newNonRetryableFailure(msg, type == null ? ErrorCode.INTERNAL.name() : type);
  }

  @Override
  protected ActionResult succeeded(Plan plan) {
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
      return unlocked.run("getWorkflowState", "state after " + action,
          () -> reads.getWorkflowState(info, request.cells())).summary();
    } catch (ActivityFailure e) {
      if (Failures.isCancellation(e)) {
        throw e;
      }
      log.warn("{} finished, but its state could not be read after it: {}", action, Failures.message(e));
      return "unknown (could not be read after " + action + ": " + Failures.message(e) + ")";
    }
  }
}
