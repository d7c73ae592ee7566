package io.pointsman.workflows;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.WorkflowState;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * Decides what a SwitchTraffic or ReverseTraffic does from reads of the workflow's state: which
 * reads switch in which cells, whether writes switch and which workflow switches them (the reverse
 * one for ReverseTraffic), a write switch left unfinished that a rerun must resume, and the lines of
 * a dry run. Read-only: it changes nothing.
 */
final class SwitchPlanner {
  private static final Logger log = Workflow.getLogger(SwitchPlanner.class);
  /** Version marker: a rerun resumes a write switch that failed after changeRouting. */
  static final String RESUME_UNFINISHED = "resume-unfinished-write-switch";
  /** Version marker: --cells may name a cell alias; read cells come from the state, not the requested names. */
  static final String CELLS_BY_ALIAS = "cells-by-alias";

  /**
   * What one action switches, decided from a read of the workflow's state.
   *
   * @param w the workflow whose writes switch: the reverse one for ReverseTraffic of writes
   * @param reads each read tablet type with the cells it switches
   */
  record Plan(MigrationInfo info, WorkflowState start, MigrationInfo w, List<ReadSwitch> reads,
      boolean switchWrites, boolean writesAlreadySwitched) {
    List<String> keyspaces() {
      return unionKeyspaces(info, w);
    }
  }

  /** One read tablet type and the cells whose reads this action changes. */
  record ReadSwitch(TabletType tabletType, List<String> cells) {}

  private final String action;
  private final SwitchTrafficRequest request;
  private final Direction direction;
  private final ProgressTracker progress;
  /** Read-only steps without the locks, also where checkJournals asks about an unfinished switch. */
  private final Steps unlocked;
  /** Every step here only reads: before the locks, and under them before any change. */
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  /** The stream migration planned before the locks, which a dry run prints. */
  private StreamMigration migrationBeforeLocks = StreamMigration.NONE;

  SwitchPlanner(String action, SwitchTrafficRequest request, Direction direction, ProgressTracker progress,
      Steps unlocked) {
    this.action = action;
    this.request = request;
    this.direction = direction;
    this.progress = progress;
    this.unlocked = unlocked;
  }

  /** The plan from the reads before the locks. */
  Plan initial() {
    MigrationInfo info = readInfo(unlocked, request.targetKeyspace() + "." + request.workflow());
    Plan p = plan(info, readState(unlocked, info, "cells " + cellsText(request.cells())), unlocked);
    migrationBeforeLocks = planStreamMigration(p, unlocked, w -> w.sourceKeyspace() + " " + w.sourceShards());
    return p;
  }

  /**
   * What a Reshard's write switch does with other workflows' streams on its source shards, asked
   * before the locks (the dry run too) and again under them, before any change: runs since
   * {@link Versions#MIGRATE_STREAMS} plan to migrate them as Vitess does and are refused only for
   * streams that cannot be; runs before refuse any.
   */
  StreamMigration planStreamMigration(Plan p, Steps via, Function<MigrationInfo, String> detail) {
    MigrationInfo w = p.w();
    if (!p.switchWrites() || p.writesAlreadySwitched() || w.migrationType() != MigrationType.SHARDS
        || !Versions.refuseStreamMigration()) {
      return StreamMigration.NONE;
    }
    if (Versions.migrateStreams()) {
      return via.run("planStreamMigration", detail.apply(w), () -> reads.planStreamMigration(w));
    }
    via.run("checkStreamMigration", detail.apply(w), () -> reads.checkStreamMigration(w));
    return StreamMigration.NONE;
  }

  /**
   * Refuses a write switch that will start reverse replication when Vitess's checks fail (the
   * source primaries' permissions, a target tablet to stream from): under the locks before any
   * change, and in the dry run ({@link Versions#CHECK_REVERSE_REPLICATION}).
   */
  void refuseReverseReplication(Plan p, Steps via) {
    MigrationInfo w = p.w();
    if (!p.switchWrites() || p.writesAlreadySwitched() || !request.enableReverseReplication()
        || !Versions.checkReverseReplication()) {
      return;
    }
    String problems = via.run("checkReverseReplication", "permissions on " + w.sourceKeyspace()
        + ", tablets to stream from on " + w.targetKeyspace(), () -> reads.checkReverseReplication(w, request.cells()));
    if (problems != null && !problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("cannot switch writes for workflow " + w.qualifiedName()
          + " with reverse replication: " + problems + "; nothing was changed", ErrorCode.FAILED_PRECONDITION.name());
    }
  }

  /**
   * The plan was made from reads before the locks, and another action may have switched the
   * workflow while this one waited for them (a second run of it under another workflow id, which
   * the id conflict policy does not stop): it would then run steps on a stale plan, or refuse a
   * switch that is already done. So read again under the locks, and when anything changed decide
   * anew from what is there, as a run started after the other would.
   */
  Plan again(Plan before, Steps locked) {
    MigrationInfo info = readInfo(locked, "again under the locks");
    WorkflowState now = readState(locked, info, "again under the locks");
    if (info.equals(before.info()) && now.equals(before.start())) {
      return before;
    }
    progress.phase("re-planning: the workflow changed while waiting for the locks");
    Plan after = plan(info, now, locked);
    log.info("{}: {} changed while waiting for the locks, from {} to {}", action, info.qualifiedName(),
        before.start().summary(), after.start().summary());
    if (!after.keyspaces().equals(before.keyspaces())) {
      throw ApplicationFailure.newNonRetryableFailure("the keyspaces of workflow " + info.qualifiedName()
          + " changed while waiting for their locks, from " + before.keyspaces() + " to " + after.keyspaces()
          + "; nothing was changed", ErrorCode.FAILED_PRECONDITION.name());
    }
    return after;
  }

  private MigrationInfo readInfo(Steps via, String detail) {
    return via.run("buildTrafficSwitcher", detail,
        () -> reads.buildTrafficSwitcher(request.targetKeyspace(), request.workflow()));
  }

  private WorkflowState readState(Steps via, MigrationInfo info, String detail) {
    return via.run("getWorkflowState", detail, () -> reads.getWorkflowState(info, request.cells()));
  }

  private Plan plan(MigrationInfo info, WorkflowState start, Steps via) {
    boolean writesAlreadySwitched = direction == Direction.FORWARD ? start.writesSwitched() : !start.writesSwitched();
    boolean switchWrites = request.includesPrimary() && !writesAlreadySwitched;
    MigrationInfo writeInfo = info;
    if (switchWrites && direction == Direction.BACKWARD) {
      // Vitess reverses writes by switching the reverse workflow forward.
      writeInfo = via.run("buildTrafficSwitcher", info.sourceKeyspace() + "." + info.reverseWorkflow(),
          () -> reads.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow()));
    } else if (request.includesPrimary() && writesAlreadySwitched
        && Workflow.getVersion(RESUME_UNFINISHED, Workflow.DEFAULT_VERSION, 1) >= 1) {
      MigrationInfo unfinished = unfinishedWriteSwitch(info);
      if (unfinished != null) {
        writeInfo = unfinished;
        switchWrites = true;
      }
    }
    return new Plan(info, start, writeInfo, planReads(start), switchWrites, writesAlreadySwitched);
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
        w = reads.buildTrafficSwitcher(info.sourceKeyspace(), info.reverseWorkflow());
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
    boolean journaled = unlocked.run("checkJournals", "writes read as switched but " + w.qualifiedName()
        + " is not frozen: an unfinished switch?", () -> reads.checkJournals(switching));
    return journaled ? w : null;
  }

  private List<ReadSwitch> planReads(WorkflowState state) {
    List<ReadSwitch> out = new ArrayList<>();
    for (TabletType type : request.readTabletTypes()) {
      List<String> candidates =
          direction == Direction.FORWARD ? state.cellsNotSwitched(type) : state.cellsSwitched(type);
      // The state covers the requested cells only, a cell alias already read as its cells, so its
      // candidates need no filter; filtering by the requested names dropped every cell of an alias.
      List<String> cells = request.cells().isEmpty() || cellsByAlias()
          ? candidates
          : candidates.stream().filter(request.cells()::contains).toList();
      out.add(new ReadSwitch(type, cells));
    }
    return out;
  }

  /** Whether this run takes its read cells from the state, where a cell alias stands for its cells. */
  private static boolean cellsByAlias() {
    return Workflow.getVersion(CELLS_BY_ALIAS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /** What the plan would do, as Vitess's dry run prints it; reads positions, changes nothing. */
  ActionResult dryRun(Plan p) {
    MigrationInfo info = p.info();
    MigrationInfo w = p.w();
    WorkflowState start = p.start();
    progress.phase("dry run");
    SwitchPlan plan = new SwitchPlan();
    String named = Pointsman.namedLock(request.targetKeyspace(), request.workflow());
    List<String> keyspaces = p.keyspaces();
    plan.locks(named, keyspaces);
    if (start.readsMirrored() && !p.reads().isEmpty()) {
      plan.mirrorRemoval(info, p.reads().stream().map(ReadSwitch::tabletType).toList());
    }
    for (ReadSwitch r : p.reads()) {
      if (r.cells().isEmpty()) {
        plan.readsAlreadySwitched(r.tabletType(), direction);
      } else {
        plan.reads(info, r.tabletType(), r.cells(), direction);
      }
    }
    if (p.switchWrites() && !w.frozen()) {
      refuseReverseReplication(p, unlocked); // the switch would be refused: so is its plan, as in Vitess
      ShardPositions now = unlocked.run("gatherPositions", "current positions for the plan",
          () -> reads.gatherPositions(w));
      SequencePlan sequences = w.migrationType() == MigrationType.TABLES && Versions.sequences()
          ? unlocked.run("planSequences", "what the switch would do to sequences",
              () -> reads.planSequences(w, request.initializeTargetSequences()))
          : SequencePlan.NONE;
      List<SequenceValue> values = sequences.initialize().isEmpty() ? List.of()
          : unlocked.run("readSequenceValues", WriteSwitch.sequenceTables(sequences),
              () -> reads.readSequenceValues(w, sequences));
      if (start.writesMirrored() && direction == Direction.FORWARD) {
        plan.mirrorRemoval(w, List.of(TabletType.PRIMARY));
      }
      plan.writes(w, now.source(), GoDurations.format(request.timeout()), request.enableReverseReplication(),
          sequences.resetSourceSequences(), values, migrationBeforeLocks);
    } else if (request.includesPrimary()) {
      plan.writesAlreadySwitched(w.frozen() ? "the workflow is frozen" : start.summary());
    }
    plan.unlocks(named, keyspaces);
    List<String> lines = plan.lines();
    progress.plan(lines);
    progress.phase("done");
    return new ActionResult(action + " dry run results for workflow " + info.qualifiedName() + " at "
        + Instant.ofEpochMilli(Workflow.currentTimeMillis()), start.summary(), start.summary(), lines);
  }

  private static List<String> unionKeyspaces(MigrationInfo a, MigrationInfo b) {
    Set<String> all = new LinkedHashSet<>(a.keyspaces());
    all.addAll(b.keyspaces());
    return all.stream().sorted().toList();
  }

  private static String cellsText(List<String> cells) {
    return cells.isEmpty() ? "all" : String.join(",", cells);
  }
}
