package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.UnfinishedCleanup;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.activity.ActivityOptions;
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
  /**
   * Version marker: the action records that it began before its first change and deletes the record
   * after its last, deleting the streams last of all; a rerun finding the record finishes from the
   * workflow as recorded, past the check and the reads the first run's steps made impossible.
   */
  static final String RESUMABLE_CLEANUP = "resumable-cleanup";

  /** What one cleanup action does, beyond the shared reading and locking. */
  interface Plan {
    /** Fails the action when the workflow is not in a state it may run in. */
    void check(MigrationInfo info, WorkflowState state);

    /** Fails the action on what further reads find; after {@link #check}, before the locks and under them. */
    default void checkByReading(MigrationInfo info, Steps via, String detail) {}

    /** The lines a dry run prints. */
    List<String> describe(MigrationInfo info, WorkflowState state);

    /**
     * The action's steps.
     *
     * @param streamsLast the streams, which buildTrafficSwitcher finds the workflow by, go last (RESUMABLE_CLEANUP)
     */
    void execute(MigrationInfo info, WorkflowState state, Steps steps, LockKeeper locks, boolean streamsLast);

    /** Whether a resumed run reads the state for its steps (Cancel sends switched reads back). */
    boolean readsStateWhenResuming();
  }

  /**
   * The workflow as read before the locks, then as read under them.
   *
   * @param state null when resuming an action whose steps do not read it
   * @param resuming a run of this action began and did not finish: finish it, without the check
   */
  record Found(MigrationInfo info, WorkflowState state, boolean resuming) {}

  private final String targetKeyspace;
  private final String workflow;
  /** Read the workflow without its source keyspace (vtctldclient's --ignore-source-keyspace). */
  private final boolean ignoreSourceKeyspace;
  private final Plan plan;
  /** The reads before the locks and under them before the first change. */
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  private final CleanupActivities recordReads = cleanupReadStub();
  private final CleanupActivities records = cleanupStub();

  /**
   * @param ignoreSourceKeyspace read, lock and change nothing of the source keyspace: the switcher is
   *     read by buildTrafficSwitcherIgnoringSource, so it is marked sourceIgnored, locks the target
   *     keyspace alone, and every step leaves the source as it is
   */
  Cleanup(String action, String targetKeyspace, String workflow, boolean ignoreSourceKeyspace, RunSettings settings,
      ProgressTracker progress, Plan plan) {
    super(action, progress, settings);
    this.targetKeyspace = targetKeyspace;
    this.workflow = workflow;
    this.ignoreSourceKeyspace = ignoreSourceKeyspace;
    this.plan = plan;
  }

  static CleanupActivities cleanupStub() {
    return Workflow.newActivityStub(CleanupActivities.class, cleanupOptions());
  }

  /** For the cleanup reads before the locks and under them before the first change. */
  static CleanupActivities cleanupReadStub() {
    return ReadStubs.of(CleanupActivities.class, cleanupOptions());
  }

  private static ActivityOptions cleanupOptions() {
    return StepOptions.step(Duration.ofMinutes(5));
  }

  static SwitchActivities switchStub() {
    return Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  }

  /** For a plan's reads in {@link Plan#checkByReading}: local activities since Versions.LOCAL_READS. */
  static SwitchActivities readStub() {
    return ReadStubs.of(SwitchActivities.class);
  }

  @Override
  protected Found plan() {
    if (resumable()) {
      UnfinishedCleanup left = unlocked.run("readUnfinishedCleanup", targetKeyspace + "." + workflow,
          () -> recordReads.readUnfinishedCleanup(targetKeyspace, workflow));
      if (left != null) {
        return resume(left, unlocked);
      }
    }
    MigrationInfo info = buildTrafficSwitcher(unlocked, targetKeyspace + "." + workflow);
    WorkflowState state = unlocked.run("getWorkflowState", "all cells", () -> reads.getWorkflowState(info, List.of()));
    plan.check(info, state);
    plan.checkByReading(info, unlocked, info.sourceKeyspace() + " " + info.sourceShards());
    return new Found(info, state, false);
  }

  private static boolean resumable() {
    return Workflow.getVersion(RESUMABLE_CLEANUP, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /**
   * Finishes what a run of this action began: its check passed then, and its steps may since have
   * deleted what the check and buildTrafficSwitcher read. Another action's unfinished run is that
   * action's to finish.
   */
  private Found resume(UnfinishedCleanup left, Steps steps) {
    MigrationInfo recorded = left.info();
    if (!left.action().equals(action)) {
      throw precondition("a " + left.action() + " of workflow " + recorded.qualifiedName() + " began and did not"
          + " finish; rerun " + left.action() + " to finish it. Nothing was changed");
    }
    // A run that failed on its source (gone since) is finished without it when the rerun says so;
    // the record would otherwise send every rerun back to the source.
    MigrationInfo info = ignoreSourceKeyspace && !recorded.sourceIgnored() ? ignoring(recorded) : recorded;
    progress.phase("resuming an unfinished " + action);
    WorkflowState state = plan.readsStateWhenResuming()
        ? steps.run("getWorkflowState", "all cells", () -> reads.getWorkflowState(info, List.of()))
        : null;
    return new Found(info, state, true);
  }

  @Override
  protected ActionResult dryRun(Found found) {
    MigrationInfo info = found.info();
    WorkflowState state = found.state();
    String named = Pointsman.namedLock(targetKeyspace, workflow);
    List<String> lines = new ArrayList<>();
    lines.add("Lock workflow " + named);
    info.keyspaces().forEach(ks -> lines.add("Lock keyspace " + ks));
    if (found.resuming()) {
      lines.add("Finish the unfinished " + action + " of workflow " + info.qualifiedName());
    }
    lines.addAll(plan.describe(info, state));
    List<String> keyspaces = info.keyspaces();
    for (int i = keyspaces.size() - 1; i >= 0; i--) {
      lines.add("Unlock keyspace " + keyspaces.get(i));
    }
    lines.add("Unlock workflow " + named);
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + info.qualifiedName() + " at "
        + Instant.ofEpochMilli(Workflow.currentTimeMillis()), summary(found), summary(found), lines);
  }

  @Override
  protected LockRequest lockRequest(Found found) {
    return locksFor(Pointsman.namedLock(targetKeyspace, workflow), found.info().keyspaces());
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
    if (resumable()) {
      UnfinishedCleanup left = locked.run("readUnfinishedCleanup", "again under the locks",
          () -> recordReads.readUnfinishedCleanup(targetKeyspace, workflow));
      if (left != null) {
        return resume(left, locked);
      }
    }
    MigrationInfo now = readUnderTheLocks(locked);
    WorkflowState state = locked.run("getWorkflowState", "again under the locks",
        () -> reads.getWorkflowState(now, List.of()));
    plan.check(now, state);
    plan.checkByReading(now, locked, "again under the locks");
    return new Found(now, state, false);
  }

  @Override
  protected void act(Found found) {
    progress.phase("cleaning up");
    MigrationInfo info = found.info();
    boolean resumable = resumable();
    if (resumable && !found.resuming()) {
      locked.run("recordUnfinishedCleanup", action + " of " + info.qualifiedName() + " begins",
          () -> records.recordUnfinishedCleanup(new UnfinishedCleanup(action, info), keeper.locks()));
    }
    plan.execute(info, found.state(), locked, keeper, resumable);
    if (resumable) {
      locked.run("deleteUnfinishedCleanup", action + " of " + info.qualifiedName() + " finished",
          () -> records.deleteUnfinishedCleanup(info.targetKeyspace(), info.workflow(), keeper.locks()));
    }
  }

  @Override
  protected RuntimeException failed(RuntimeException e, Found found) {
    return rerunToFinish(action, e);
  }

  /**
   * How a Complete or Cancel (Migrate's included) fails: every step converges, so the failure says to
   * rerun the action; a cancelled one ends Canceled, not as a failure to rerun.
   */
  static RuntimeException rerunToFinish(String action, RuntimeException e) {
    if (e instanceof LockLostSignal lost) {
      return ApplicationFailure.newNonRetryableFailure(lost.getMessage() + "; nothing after that step ran. Rerun "
          + action + " to finish: every step converges.", ErrorCode.LOCK_LOST.name());
    }
    if (e instanceof ApplicationFailure || e instanceof CanceledFailure) {
      return e;
    }
    String type = Failures.applicationType(e);
    return ApplicationFailure.newNonRetryableFailure(Failures.message(e) + ". Rerun " + action + " to finish.",
        type == null ? ErrorCode.INTERNAL.name() : type);
  }

  @Override
  protected ActionResult succeeded(Found found) {
    String verb = action.equals(Pointsman.COMPLETE_MIGRATION) ? "completed" : "cancelled";
    return new ActionResult("Successfully " + verb + " the " + workflow + " workflow in the " + targetKeyspace
        + " keyspace", summary(found), verb, List.of());
  }

  private String summary(Found found) {
    return found.state() != null ? found.state().summary() : "an unfinished " + action;
  }

  /**
   * The workflow as it is now that the locks are held. Gone means another Complete or Cancel ended
   * it while this one waited: nothing is left to do, and a rerun would only fail the same way.
   */
  private MigrationInfo readUnderTheLocks(Steps steps) {
    try {
      return buildTrafficSwitcher(steps, "again under the locks");
    } catch (RuntimeException e) {
      if (ErrorCode.NOT_FOUND.name().equals(Failures.applicationType(e))) {
        throw ApplicationFailure.newNonRetryableFailure("workflow " + workflow + " no longer exists in keyspace "
            + targetKeyspace + ": another action ended it while this " + action + " waited for the locks; "
            + "nothing was changed", ErrorCode.NOT_FOUND.name());
      }
      throw e;
    }
  }

  /** The workflow as its streams and the topology say, without the source keyspace when asked to ignore it. */
  private MigrationInfo buildTrafficSwitcher(Steps steps, String detail) {
    if (ignoreSourceKeyspace) {
      return steps.run("buildTrafficSwitcher", detail + ", ignoring the source keyspace",
          () -> reads.buildTrafficSwitcherIgnoringSource(targetKeyspace, workflow));
    }
    return steps.run("buildTrafficSwitcher", detail, () -> reads.buildTrafficSwitcher(targetKeyspace, workflow));
  }

  /** A streams step's detail: {@code both} as ever, or the target's streams alone when the source is ignored. */
  static String streamsDetail(MigrationInfo info, String both) {
    return info.sourceIgnored() ? "delete " + info.workflow() + " streams on " + info.targetKeyspace() + "; "
        + info.reverseWorkflow() + " on " + info.sourceKeyspace() + " ignored" : both;
  }

  /** The recorded switcher to finish without its source; only a MoveTables has a source of its own. */
  private static MigrationInfo ignoring(MigrationInfo recorded) {
    if (recorded.migrationType() != MigrationType.TABLES) {
      throw ApplicationFailure.newNonRetryableFailure("workflow " + recorded.qualifiedName() + " is a Reshard:"
          + " ignoreSourceKeyspace (--ignore-source-keyspace) is for MoveTables, whose source is another keyspace."
          + " Nothing was changed", ErrorCode.INVALID_ARGUMENT.name());
    }
    return recorded.ignoringSource();
  }

  /** The dry run's line for a source keyspace ignored, or none. */
  static List<String> sourceIgnoredLine(MigrationInfo info) {
    return info.sourceIgnored() ? List.of("Source keyspace " + info.sourceKeyspace() + " is ignored: nothing of it"
        + " is read, locked or changed (its tables, denied tables and reverse streams stay as they are)") : List.of();
  }

  /** Fails the workflow with a precondition error Vitess users recognise. */
  static ApplicationFailure precondition(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, ErrorCode.FAILED_PRECONDITION.name());
  }

  /** One read tablet type whose reads are switched to the target, and the cells where they are. */
  record SwitchedReads(TabletType tabletType, List<String> cells) {}

  /** The reads switched to the target, per tablet type. */
  static List<SwitchedReads> switchedReads(WorkflowState state) {
    List<SwitchedReads> out = new ArrayList<>();
    if (!state.replicaCellsSwitched().isEmpty()) {
      out.add(new SwitchedReads(TabletType.REPLICA, state.replicaCellsSwitched()));
    }
    if (!state.rdonlyCellsSwitched().isEmpty()) {
      out.add(new SwitchedReads(TabletType.RDONLY, state.rdonlyCellsSwitched()));
    }
    return out;
  }

  static String what(MigrationInfo info) {
    return info.migrationType() == MigrationType.TABLES ? "tables " + info.tables() : "shards " + info.sourceShards();
  }
}
