package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Complete and Cancel (docs/vitess-switching.md §9–§10). Neither compensates: each step converges when run again
 * (dropping what is gone is fine), so a failed run is finished by rerunning it, as in Vitess.
 */
final class Cleanup extends LockedAction<Cleanup.Found> {
  /** Version marker: the check is made again under the locks, and the action acts on what it read there. */
  static final String CHECK_UNDER_LOCKS = "check-under-locks";

  /** What one cleanup action does, beyond the shared reading and locking. */
  interface Plan {
    /** Fails the action when the workflow is not in a state it may run in. */
    void check(MigrationInfo info, WorkflowState state);

    /** The lines a dry run prints. */
    List<String> describe(MigrationInfo info, WorkflowState state);

    void execute(MigrationInfo info, WorkflowState state, Steps steps, LockKeeper locks);
  }

  /** The workflow as read before the locks, then as read under them. */
  record Found(MigrationInfo info, WorkflowState state) {}

  private final String targetKeyspace;
  private final String workflow;
  private final boolean dryRun;
  private final Duration lockTtl;
  private final Duration maxLockHold;
  private final Plan plan;
  private final SwitchActivities reads = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());

  Cleanup(String action, String targetKeyspace, String workflow, boolean dryRun, Duration lockTtl,
      Duration maxLockHold, ProgressTracker progress, Plan plan) {
    super(action, progress);
    this.targetKeyspace = targetKeyspace;
    this.workflow = workflow;
    this.dryRun = dryRun;
    this.lockTtl = lockTtl;
    this.maxLockHold = maxLockHold;
    this.plan = plan;
  }

  static CleanupActivities cleanupStub() {
    return Workflow.newActivityStub(CleanupActivities.class, StepOptions.step(Duration.ofMinutes(5)));
  }

  static SwitchActivities switchStub() {
    return Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  }

  @Override
  protected Found plan() {
    MigrationInfo info = unlocked.run("buildTrafficSwitcher", targetKeyspace + "." + workflow,
        () -> reads.buildTrafficSwitcher(targetKeyspace, workflow));
    WorkflowState state = unlocked.run("getWorkflowState", "all cells", () -> reads.getWorkflowState(info, List.of()));
    plan.check(info, state);
    return new Found(info, state);
  }

  @Override
  protected boolean dryRun() {
    return dryRun;
  }

  @Override
  protected ActionResult dryRun(Found found) {
    MigrationInfo info = found.info();
    WorkflowState state = found.state();
    String named = Pointsman.namedLock(targetKeyspace, workflow);
    List<String> lines = new ArrayList<>();
    lines.add("Lock workflow " + named);
    info.keyspaces().forEach(ks -> lines.add("Lock keyspace " + ks));
    lines.addAll(plan.describe(info, state));
    List<String> keyspaces = info.keyspaces();
    for (int i = keyspaces.size() - 1; i >= 0; i--) {
      lines.add("Unlock keyspace " + keyspaces.get(i));
    }
    lines.add("Unlock workflow " + named);
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + info.qualifiedName() + " at "
        + Instant.ofEpochMilli(Workflow.currentTimeMillis()), state.summary(), state.summary(), lines);
  }

  @Override
  protected LockRequest lockRequest(Found found) {
    return new LockRequest(Pointsman.namedLock(targetKeyspace, workflow), found.info().keyspaces(), action, lockTtl,
        maxLockHold);
  }

  @Override
  protected String decideAgainChange() {
    return CHECK_UNDER_LOCKS;
  }

  /**
   * The check before the locks is stale once another action held them meanwhile: a Cancel queued
   * behind a SwitchTraffic would drop the target tables that now take the writes.
   */
  @Override
  protected Found decideAgain(Found before) {
    MigrationInfo now = readUnderTheLocks(locked);
    WorkflowState state = locked.run("getWorkflowState", "again under the locks",
        () -> reads.getWorkflowState(now, List.of()));
    plan.check(now, state);
    return new Found(now, state);
  }

  @Override
  protected void act(Found found) {
    progress.phase("cleaning up");
    plan.execute(found.info(), found.state(), locked, keeper);
  }

  @Override
  protected RuntimeException failed(RuntimeException e, Found found) {
    if (e instanceof LockLostSignal lost) {
      return ApplicationFailure.newNonRetryableFailure(lost.getMessage() + "; nothing after that step ran. Rerun "
          + action + " to finish: every step converges.", ErrorCode.LOCK_LOST.name());
    }
    if (e instanceof ApplicationFailure || e instanceof CanceledFailure) {
      return e; // a cancelled Complete or Cancel ends Canceled, not as a failure to rerun
    }
    String type = Failures.applicationType(e);
    return ApplicationFailure.newNonRetryableFailure(Failures.message(e) + ". Rerun " + action + " to finish.",
        type == null ? ErrorCode.INTERNAL.name() : type);
  }

  @Override
  protected ActionResult succeeded(Found found) {
    String verb = action.equals(Pointsman.COMPLETE_MIGRATION) ? "completed" : "cancelled";
    return new ActionResult("Successfully " + verb + " the " + workflow + " workflow in the " + targetKeyspace
        + " keyspace", found.state().summary(), verb, List.of());
  }

  /**
   * The workflow as it is now that the locks are held. Gone means another Complete or Cancel ended
   * it while this one waited: nothing is left to do, and a rerun would only fail the same way.
   */
  private MigrationInfo readUnderTheLocks(Steps steps) {
    try {
      return steps.run("buildTrafficSwitcher", "again under the locks",
          () -> reads.buildTrafficSwitcher(targetKeyspace, workflow));
    } catch (RuntimeException e) {
      if (ErrorCode.NOT_FOUND.name().equals(Failures.applicationType(e))) {
        throw ApplicationFailure.newNonRetryableFailure("workflow " + workflow + " no longer exists in keyspace "
            + targetKeyspace + ": another action ended it while this " + action + " waited for the locks; "
            + "nothing was changed", ErrorCode.NOT_FOUND.name());
      }
      throw e;
    }
  }

  /** Fails the workflow with a precondition error Vitess users recognise. */
  static ApplicationFailure precondition(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, ErrorCode.FAILED_PRECONDITION.name());
  }

  /** One read tablet type whose reads are switched to the target, and the cells where they are. */
  record SwitchedReads(String tabletType, List<String> cells) {}

  /** The reads switched to the target, per tablet type. */
  static List<SwitchedReads> switchedReads(WorkflowState state) {
    List<SwitchedReads> out = new ArrayList<>();
    if (!state.replicaCellsSwitched().isEmpty()) {
      out.add(new SwitchedReads("REPLICA", state.replicaCellsSwitched()));
    }
    if (!state.rdonlyCellsSwitched().isEmpty()) {
      out.add(new SwitchedReads("RDONLY", state.rdonlyCellsSwitched()));
    }
    return out;
  }

  static String what(MigrationInfo info) {
    return info.migrationType() == MigrationType.TABLES ? "tables " + info.tables() : "shards " + info.sourceShards();
  }
}
