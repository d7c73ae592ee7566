package io.pointsman.workflows;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;

/**
 * MirrorTraffic, as vtctldclient's {@code MoveTables mirrortraffic} (docs/vitess-switching.md §3.2.1):
 * refuses what Vitess refuses (anything but a forward MoveTables of whole tables, and tablet types
 * whose traffic is switched), takes the workflow's named lock and the target keyspace's, and in one
 * step sets the moved tables' mirror rules and the target primaries' allow_reads. A failure after
 * that step began sets allow_reads from the rules as they are, so the primaries never serve reads of
 * denied tables that nothing mirrors.
 */
final class TrafficMirror extends LockedAction<TrafficMirror.Plan> {
  private static final Logger log = Workflow.getLogger(TrafficMirror.class);
  /** Version marker of LockedAction#decideAgain; every MirrorTraffic run reads again under the locks. */
  static final String CHECK_UNDER_LOCKS = "mirror-check-under-locks";

  /** The workflow and its traffic state, read before the locks and again under them. */
  record Plan(MigrationInfo info, WorkflowState start) {}

  private final MirrorTrafficRequest request;
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  private final SwitchActivities changes = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  /** Set once the mirroring step has been asked for: from then on a failure may have left a change. */
  private boolean mirroringStarted;

  TrafficMirror(MirrorTrafficRequest request, ProgressTracker progress) {
    super(Pointsman.MIRROR_TRAFFIC, progress, new RunSettings(request.dryRun(), request.lockTtl(),
        request.maxLockHold()));
    this.request = request;
  }

  @Override
  protected Plan plan() {
    return read(unlocked, "");
  }

  private Plan read(Steps via, String when) {
    String name = request.targetKeyspace() + "." + request.workflow();
    MigrationInfo info = via.run("buildTrafficSwitcher", name + when,
        () -> reads.buildTrafficSwitcher(request.targetKeyspace(), request.workflow()));
    refuseWorkflow(info);
    WorkflowState state = via.run("getWorkflowState", "all cells" + when, () -> reads.getWorkflowState(info, List.of()));
    refuseSwitchedTypes(info, state);
    return new Plan(info, state);
  }

  /** Vitess mirrors a forward MoveTables only (partial and multi-tenant ones buildTrafficSwitcher refuses). */
  private static void refuseWorkflow(MigrationInfo info) {
    if (info.migrationType() != MigrationType.TABLES) {
      throw refused("invalid action for Reshard workflow: MirrorTraffic; nothing was changed",
          ErrorCode.INVALID_ARGUMENT);
    }
    if (info.workflow().endsWith("_reverse")) {
      throw refused("invalid action for reverse workflow: MirrorTraffic; nothing was changed",
          ErrorCode.INVALID_ARGUMENT);
    }
  }

  /** As Vitess: no traffic of a type already switched to the target is mirrored there. */
  private void refuseSwitchedTypes(MigrationInfo info, WorkflowState state) {
    List<String> switched = new ArrayList<>();
    for (TabletType type : request.tabletTypes()) {
      boolean done = switch (type) {
        case PRIMARY -> state.writesSwitched();
        case REPLICA -> !state.replicaCellsSwitched().isEmpty();
        case RDONLY -> !state.rdonlyCellsSwitched().isEmpty();
        default -> false;
      };
      if (done) {
        switched.add(type.name().toLowerCase(Locale.ROOT));
      }
    }
    if (!switched.isEmpty()) {
      throw refused("cannot mirror [" + String.join(",", switched) + "] traffic for workflow " + info.workflow()
          + " at this time: traffic for those tablet types is switched; nothing was changed",
          ErrorCode.FAILED_PRECONDITION);
    }
  }

  private static ApplicationFailure refused(String message, ErrorCode code) {
    return ApplicationFailure.newNonRetryableFailure(message, code.name());
  }

  @Override
  protected ActionResult dryRun(Plan plan) {
    progress.phase("dry run");
    MigrationInfo info = plan.info();
    String named = Pointsman.namedLock(request.targetKeyspace(), request.workflow());
    List<String> lines = new ArrayList<>();
    lines.add("Lock workflow " + named);
    lines.add("Lock keyspace " + request.targetKeyspace());
    lines.add(mirroringLine(info));
    lines.add("Unlock keyspace " + request.targetKeyspace());
    lines.add("Unlock workflow " + named);
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + info.qualifiedName() + " at "
        + Instant.ofEpochMilli(Workflow.currentTimeMillis()), plan.start().summary(), plan.start().summary(), lines);
  }

  /** The change in the words Vitess's dry run uses for a switch's removal of mirror rules. */
  private String mirroringLine(MigrationInfo info) {
    return SwitchPlan.mirroring(info, request.percent(), request.tabletTypes());
  }

  @Override
  protected LockRequest lockRequest(Plan plan) {
    // Vitess's MirrorTraffic takes the workflow's named lock and the target keyspace's only.
    return locksFor(Pointsman.namedLock(request.targetKeyspace(), request.workflow()),
        List.of(request.targetKeyspace()));
  }

  @Override
  protected String decideAgainChange() {
    return CHECK_UNDER_LOCKS;
  }

  @Override
  protected Plan decideAgain(Plan before) {
    return read(locked, " again under the locks");
  }

  @Override
  protected void act(Plan plan) {
    MigrationInfo info = plan.info();
    progress.phase("mirroring");
    mirroringStarted = true;
    locked.run("mirrorTableTraffic", mirroringLine(info),
        () -> changes.mirrorTableTraffic(info, request.tabletTypes(), request.percent(), keeper.locks()));
  }

  @Override
  protected RuntimeException failed(RuntimeException failure, Plan plan) {
    if (failure instanceof LockLostSignal) {
      // Nothing may change without the locks; the step converges when run again.
      return Cleanup.rerunToFinish(action, failure);
    }
    boolean cancelled = CancellationScope.current().isCancelRequested();
    String type = Failures.applicationType(failure);
    // The step refuses before any change (partial mirror rules); the checks before it change nothing.
    boolean refusal = ErrorCode.ALREADY_EXISTS.name().equals(type) || ErrorCode.FAILED_PRECONDITION.name().equals(type)
        || ErrorCode.INVALID_ARGUMENT.name().equals(type);
    String settled = mirroringStarted && !refusal ? settleTargetReads(plan.info()) : "";
    if (cancelled) {
      return failure instanceof CanceledFailure c ? c
          : new CanceledFailure("the workflow was cancelled" + settled + ": " + Failures.message(failure));
    }
    if (refusal) {
      return failure instanceof ApplicationFailure ? failure
          : ApplicationFailure.newNonRetryableFailure(Failures.message(failure), type);
    }
    return ApplicationFailure.newNonRetryableFailure(Failures.message(failure) + settled + ". Rerun " + action
        + " to finish: its step converges.", type == null ? ErrorCode.INTERNAL.name() : type);
  }

  /**
   * After the mirroring step failed or was cancelled, perhaps between its changes: the target
   * primaries' allow_reads set from the mirror rules as they are, under the locks still held.
   * Returns what to add to the failure's message: nothing when that changed nothing to report.
   */
  private String settleTargetReads(MigrationInfo info) {
    String[] outcome = {""};
    Workflow.newDetachedCancellationScope(() -> {
      progress.phase("compensating");
      try {
        locked.run("allowTargetReadsWhileMirrored", "target primaries of " + info.targetKeyspace()
            + " allow reads only while mirrored", () -> changes.allowTargetReadsWhileMirrored(info, keeper.locks()));
      } catch (ActivityFailure | LockLostSignal e) {
        log.warn("{}: the target primaries' allow_reads could not be set from the mirror rules: {}", action,
            Failures.message(e));
        outcome[0] = "; the target primaries' allow_reads could not be set from the mirror rules ("
            + Failures.message(e) + ")";
      }
    }).run();
    return outcome[0];
  }

  @Override
  protected ActionResult succeeded(Plan plan) {
    MigrationInfo info = plan.info();
    return new ActionResult(action + " was successful for workflow " + info.qualifiedName(), plan.start().summary(),
        stateAfter(info), List.of());
  }

  /** Read-only, after the release; a failed read leaves the state unknown rather than failing the action. */
  private String stateAfter(MigrationInfo info) {
    try {
      return unlocked.run("getWorkflowState", "state after " + action, () -> reads.getWorkflowState(info, List.of()))
          .summary();
    } catch (ActivityFailure e) {
      if (Failures.isCancellation(e)) {
        throw e;
      }
      return "unknown (could not be read after " + action + ": " + Failures.message(e) + ")";
    }
  }
}
