package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import java.util.ArrayList;
import java.util.List;

public class CompleteMigrationWorkflowImpl extends ActionWorkflow implements CompleteMigrationWorkflow {
  public CompleteMigrationWorkflowImpl() {
    super(Pointsman.COMPLETE_MIGRATION);
  }

  @Override
  public ActionResult complete(CompleteRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.COMPLETE_MIGRATION);
    }
    progress = new ProgressTracker(Pointsman.COMPLETE_MIGRATION, request.targetKeyspace(), request.workflow());
    RunSettings settings = new RunSettings(request.dryRun(), request.lockTtl(), request.maxLockHold());
    MigrateWorkflow migrate = MigrateFinalize.read(progress, request.targetKeyspace(), request.workflow());
    if (migrate != null) {
      return new MigrateFinalize(Pointsman.COMPLETE_MIGRATION, migrate, true, false, settings, progress).run();
    }
    CleanupActivities cleanup = Cleanup.cleanupStub();
    return new Cleanup(Pointsman.COMPLETE_MIGRATION, request.targetKeyspace(), request.workflow(),
        request.ignoreSourceKeyspace(), settings, progress, new Cleanup.Plan() {
          @Override
          public void check(MigrationInfo info, WorkflowState state) {
            if (!state.writesSwitched() || !state.readsFullySwitched()) {
              throw Cleanup.precondition("cannot complete workflow " + info.qualifiedName()
                  + " because you have not yet switched all read and write traffic (" + state.summary() + ")");
            }
            JournalGrace.check(info, request.journalGrace());
          }

          @Override
          public void checkByReading(MigrationInfo info, Steps via, String detail) {
            // Deleting the source shards would strand streams of other workflows on or from them.
            if (!request.keepData() && info.migrationType() == MigrationType.SHARDS
                && Versions.refuseStreamMigration()) {
              SwitchActivities reads = Cleanup.readStub();
              via.run("checkSourceShardsDeletion", detail, () -> reads.checkSourceShardsDeletion(info));
            }
          }

          @Override
          public List<String> describe(MigrationInfo info, WorkflowState state) {
            List<String> lines = new ArrayList<>(Cleanup.sourceIgnoredLine(info));
            if (!info.sourceIgnored()) {
              lines.add("Delete reverse vreplication streams on sources: " + info.sourceKeyspace() + " "
                  + info.sourceShards() + " workflow " + info.reverseWorkflow());
            }
            lines.add("Delete vreplication streams on targets: " + info.targetKeyspace() + " " + info.targetShards()
                + " workflow " + info.workflow());
            if (!request.keepData() && info.sourceIgnored()) {
              lines.add("Denied tables records on " + info.tables() + " will be removed from "
                  + info.targetKeyspace() + " " + info.targetShards());
            } else if (!request.keepData()) {
              if (info.migrationType() == MigrationType.TABLES) {
                lines.add((request.renameTables() ? "Renaming" : "Dropping") + " these tables from the database and"
                    + " removing them from the vschema for keyspace " + info.sourceKeyspace() + ": " + info.tables());
                lines.add("Denied tables records on " + info.tables() + " will be removed from "
                    + info.sourceKeyspace() + " " + info.sourceShards());
              } else {
                lines.add("Delete shards (and all related tablets): " + info.sourceKeyspace() + " "
                    + info.sourceShards());
              }
            }
            if (!request.keepRoutingRules() && info.migrationType() == MigrationType.TABLES) {
              lines.add("Routing rules for participating tables will be deleted");
            }
            return lines;
          }

          @Override
          public void execute(MigrationInfo info, WorkflowState state, Steps steps, LockKeeper locks,
              boolean streamsLast) {
            if (!streamsLast) {
              // Runs from before RESUMABLE_CLEANUP deleted the streams first.
              steps.run("dropArtifacts", "delete " + info.reverseWorkflow() + " and " + info.workflow() + " streams",
                  () -> cleanup.deleteStreams(info, locks.locks()));
            }
            if (!request.keepData()) {
              // dropSources deletes the reverse streams first: none may write into what it drops.
              String detail = info.sourceIgnored()
                  ? "denied tables of " + info.tables() + " off " + info.targetKeyspace() + "; "
                      + info.sourceKeyspace() + " ignored"
                  : (request.renameTables() ? "rename " : "drop ") + Cleanup.what(info) + " on "
                      + info.sourceKeyspace();
              steps.run("dropSources", detail, () -> cleanup.dropSources(info, request.renameTables(), locks.locks()));
            }
            if (!request.keepRoutingRules()) {
              steps.run("deleteRoutingRules", "routing rules of " + info.tables(),
                  () -> cleanup.deleteRoutingRules(info, locks.locks()));
            }
            if (streamsLast) {
              // Last: the workflow is found by its streams, so until they go a rerun can read it.
              steps.run("dropArtifacts", Cleanup.streamsDetail(info,
                  "delete " + info.reverseWorkflow() + " and " + info.workflow() + " streams"),
                  () -> cleanup.deleteStreams(info, locks.locks()));
            }
          }

          @Override
          public boolean readsStateWhenResuming() {
            return false;
          }
        }).run();
  }
}
