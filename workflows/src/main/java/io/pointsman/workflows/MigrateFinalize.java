package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Complete or Cancel of a Migrate workflow (docs/migrate.md). A Migrate imports from outside the
 * cluster and has no traffic to switch, so Vitess finalizes it on the target keyspace alone, under
 * that keyspace's lock: Complete adds its tables to the target VSchema, Cancel drops them (unless
 * data is kept); both delete its streams, last, since the workflow is found by them until then.
 */
final class MigrateFinalize extends LockedAction<MigrateWorkflow> {
  /** Version marker: Complete and Cancel finalize a Migrate workflow instead of refusing it. */
  static final String FINALIZE_MIGRATE = "finalize-migrate-workflows";

  private final boolean complete;
  private final boolean keepData;
  private final CleanupActivities cleanup = Cleanup.cleanupStub();
  /** The reads before the locks and under them before the first change. */
  private final CleanupActivities reads = Cleanup.cleanupReadStub();
  private final MigrateWorkflow found;

  /**
   * @param found the workflow as read before the locks
   * @param complete Complete, or else Cancel
   */
  MigrateFinalize(String action, MigrateWorkflow found, boolean complete, boolean keepData, RunSettings settings,
      ProgressTracker progress) {
    super(action, progress, settings);
    this.found = found;
    this.complete = complete;
    this.keepData = keepData;
  }

  /** The Migrate workflow {@code workflow} is, or null; runs from before the change read nothing here. */
  static MigrateWorkflow read(ProgressTracker progress, String targetKeyspace, String workflow) {
    if (Workflow.getVersion(FINALIZE_MIGRATE, Workflow.DEFAULT_VERSION, 1) < 1) {
      return null;
    }
    CleanupActivities reads = Cleanup.cleanupReadStub();
    return new Steps(progress, null).run("readMigrateWorkflow", targetKeyspace + "." + workflow,
        () -> reads.readMigrateWorkflow(targetKeyspace, workflow));
  }

  @Override
  protected MigrateWorkflow plan() {
    check(found, unlocked);
    return found;
  }

  private void check(MigrateWorkflow m, Steps via) {
    if (complete) {
      via.run("checkMigrateComplete", "tables " + m.tables() + " in the VSchema of " + m.targetKeyspace(),
          () -> reads.checkMigrateComplete(m));
    }
  }

  @Override
  protected ActionResult dryRun(MigrateWorkflow m) {
    String named = Pointsman.namedLock(m.targetKeyspace(), m.workflow());
    List<String> lines = new ArrayList<>();
    lines.add("Lock workflow " + named);
    lines.add("Lock keyspace " + m.targetKeyspace());
    if (complete) {
      lines.add("Add tables " + m.tables() + " to the VSchema of keyspace " + m.targetKeyspace()
          + " where missing, and rebuild the serving VSchema");
      lines.add("Denied tables records on " + m.tables() + " will be removed from " + m.targetKeyspace() + " "
          + m.targetShards());
    } else if (!keepData) {
      lines.add("Dropping these tables from the database and removing them from the vschema for keyspace "
          + m.targetKeyspace() + ": " + m.tables());
    }
    lines.add("Delete vreplication streams on targets: " + m.targetKeyspace() + " " + m.targetShards() + " workflow "
        + m.workflow());
    lines.add("Unlock keyspace " + m.targetKeyspace());
    lines.add("Unlock workflow " + named);
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + m.qualifiedName() + " at "
        + Instant.ofEpochMilli(Workflow.currentTimeMillis()), state(), state(), lines);
  }

  @Override
  protected LockRequest lockRequest(MigrateWorkflow m) {
    // The source is another cluster's: only the target keyspace is locked, as Vitess locks it.
    return locksFor(Pointsman.namedLock(m.targetKeyspace(), m.workflow()), List.of(m.targetKeyspace()));
  }

  @Override
  protected String decideAgainChange() {
    return Cleanup.CHECK_UNDER_LOCKS;
  }

  @Override
  protected MigrateWorkflow decideAgain(MigrateWorkflow before) {
    MigrateWorkflow now = locked.run("readMigrateWorkflow", "again under the locks",
        () -> reads.readMigrateWorkflow(before.targetKeyspace(), before.workflow()));
    if (now == null) {
      throw ApplicationFailure.newNonRetryableFailure("workflow " + before.workflow() + " no longer exists in keyspace "
          + before.targetKeyspace() + ": another action ended it while this " + action + " waited for the locks;"
          + " nothing was changed", ErrorCode.NOT_FOUND.name());
    }
    check(now, locked);
    return now;
  }

  @Override
  protected void act(MigrateWorkflow m) {
    progress.phase("finalizing the Migrate workflow");
    if (complete) {
      locked.run("addMigratedTables", m.tables() + " → VSchema of " + m.targetKeyspace(),
          () -> cleanup.addMigratedTables(m, keeper.locks()));
    } else if (!keepData) {
      locked.run("dropMigratedTables", "drop " + m.tables() + " on " + m.targetKeyspace(),
          () -> cleanup.dropMigratedTables(m, keeper.locks()));
    }
    // Last: the workflow is found by its streams, so until they go a rerun can read it and finish.
    locked.run("deleteMigrateStreams", "delete " + m.workflow() + " streams on " + m.targetKeyspace() + " "
        + m.targetShards(), () -> cleanup.deleteMigrateStreams(m, keeper.locks()));
  }

  @Override
  protected RuntimeException failed(RuntimeException e, MigrateWorkflow m) {
    return Cleanup.rerunToFinish(action, e);
  }

  @Override
  protected ActionResult succeeded(MigrateWorkflow m) {
    String verb = complete ? "completed" : "cancelled";
    return new ActionResult("Successfully " + verb + " the " + m.workflow() + " workflow in the " + m.targetKeyspace()
        + " keyspace", state(), verb, List.of());
  }

  private static String state() {
    return "a Migrate workflow (no traffic to switch)";
  }
}
