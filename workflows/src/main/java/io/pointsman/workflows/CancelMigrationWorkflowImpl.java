package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrateWorkflow;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

public class CancelMigrationWorkflowImpl extends ActionWorkflow implements CancelMigrationWorkflow {
  /** Version marker: Cancel refuses a workflow whose switch wrote its journal and did not finish. */
  static final String REFUSE_UNDER_JOURNAL = "cancel-refuses-under-journal";

  public CancelMigrationWorkflowImpl() {
    super(Pointsman.CANCEL_MIGRATION);
  }

  @Override
  public ActionResult cancel(CancelRequest request) {
    if (request == null) {
      throw Inputs.missing(Pointsman.CANCEL_MIGRATION);
    }
    progress = new ProgressTracker(Pointsman.CANCEL_MIGRATION, request.targetKeyspace(), request.workflow());
    RunSettings settings = new RunSettings(request.dryRun(), request.lockTtl(), request.maxLockHold());
    MigrateWorkflow migrate = MigrateFinalize.read(progress, request.targetKeyspace(), request.workflow());
    if (migrate != null) {
      return new MigrateFinalize(Pointsman.CANCEL_MIGRATION, migrate, false, request.keepData(), settings, progress)
          .run();
    }
    CleanupActivities cleanup = Cleanup.cleanupStub();
    SwitchActivities switcher = Cleanup.switchStub();
    SwitchActivities reads = Cleanup.readStub();
    return new Cleanup(Pointsman.CANCEL_MIGRATION, request.targetKeyspace(), request.workflow(),
        request.ignoreSourceKeyspace(), settings, progress, new Cleanup.Plan() {
          @Override
          public void check(MigrationInfo info, WorkflowState state) {
            if (state.writesSwitched()) {
              throw Cleanup.precondition("cannot cancel workflow " + info.qualifiedName()
                  + " because its writes have been switched; run ReverseTraffic first");
            }
            // Past the journal a switch only goes forward: its sources are denied and a rerun
            // resumes from the journal. Dropping the target tables then would leave no side to write to.
            // The journal is on the source: a source ignored is not read, as vtctldclient does not.
            if (Workflow.getVersion(REFUSE_UNDER_JOURNAL, Workflow.DEFAULT_VERSION, 1) >= 1
                && !info.sourceIgnored() && reads.checkJournals(info)) {
              throw Cleanup.precondition("cannot cancel workflow " + info.qualifiedName() + " because a switch of"
                  + " its writes wrote its journal (the point of no return) and did not finish; rerun SwitchTraffic,"
                  + " which resumes from the journal. Nothing was changed");
            }
          }

          @Override
          public List<String> describe(MigrationInfo info, WorkflowState state) {
            List<String> lines = new ArrayList<>(Cleanup.sourceIgnoredLine(info));
            for (Cleanup.SwitchedReads r : readsToSendBack(info, state)) {
              lines.add("Switch reads of tablet type " + r.tabletType() + " back to keyspace " + info.sourceKeyspace()
                  + " in cells [" + String.join(",", r.cells()) + "]");
            }
            lines.add("Stop and delete vreplication streams on targets: " + info.targetKeyspace() + " "
                + info.targetShards() + " workflow " + info.workflow());
            if (!request.keepData()) {
              lines.add("Dropping these tables from the database for keyspace " + info.targetKeyspace() + ": "
                  + info.tables());
            }
            if (info.migrationType() == MigrationType.SHARDS) {
              List<String> shards = new ArrayList<>(info.sourceShards());
              shards.addAll(info.targetShards());
              lines.add("Shard tablet controls that read switches left on " + shards + " will be removed from the"
                  + " SrvKeyspace of keyspace " + info.targetKeyspace());
            }
            if (info.migrationType() == MigrationType.TABLES) {
              lines.add("Denied tables records on " + info.tables() + " will be removed from " + info.targetKeyspace()
                  + " " + info.targetShards() + (info.sourceIgnored() ? "" : " and " + info.sourceKeyspace() + " "
                  + info.sourceShards()));
              if (!request.keepRoutingRules()) {
                lines.add("Routing rules for participating tables will be deleted");
              }
            }
            return lines;
          }

          @Override
          public void execute(MigrationInfo info, WorkflowState state, Steps steps, LockKeeper locks,
              boolean streamsLast) {
            // Vitess leaves Reshard reads switched after Cancel; send them back first.
            for (Cleanup.SwitchedReads r : readsToSendBack(info, state)) {
              steps.run("switchReads", r.tabletType() + " back to " + info.sourceKeyspace() + " in cells " + r.cells(),
                  () -> switcher.switchReads(info, List.of(r.tabletType()), r.cells(), Direction.BACKWARD,
                      locks.locks()));
            }
            steps.run("dropTargets", (request.keepData() ? "keep" : "drop") + " data of " + info.tables() + " on "
                + info.targetKeyspace(), () -> cleanup.dropTargets(info, request.keepData(), locks.locks()));
            if (!streamsLast) {
              deleteStreams(info, steps, locks);
            }
            if (!request.keepRoutingRules()) {
              steps.run("deleteRoutingRules", "routing rules of " + info.tables(),
                  () -> cleanup.deleteRoutingRules(info, locks.locks()));
            }
            if (streamsLast) {
              // Last: the workflow is found by its streams, so until they go a rerun can read it.
              deleteStreams(info, steps, locks);
            }
          }

          /**
           * The reads switched to the target, to send back to the source before anything goes; none
           * when the source is ignored: reads are not sent to a keyspace that may be gone, and the rules
           * that send them to the target go with the rest (unless kept), as with vtctldclient.
           */
          private List<Cleanup.SwitchedReads> readsToSendBack(MigrationInfo info, WorkflowState state) {
            return info.sourceIgnored() ? List.of() : Cleanup.switchedReads(state);
          }

          private void deleteStreams(MigrationInfo info, Steps steps, LockKeeper locks) {
            steps.run("deleteWorkflow", Cleanup.streamsDetail(info,
                "delete " + info.workflow() + " and " + info.reverseWorkflow() + " streams"),
                () -> cleanup.deleteStreams(info, locks.locks()));
          }

          @Override
          public boolean readsStateWhenResuming() {
            return true;
          }
        }).run();
  }
}
