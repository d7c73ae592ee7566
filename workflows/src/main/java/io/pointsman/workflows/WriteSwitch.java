package io.pointsman.workflows;

import io.pointsman.api.activities.FailoverToolActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.SavedStream;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.ShardPositions;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The write switch of one locked run, step by step as Vitess orders them (docs/vitess-switching.md §4–§5), with
 * compensation registered before each step, up to the journal; the journal and what follows it are
 * its {@link PointOfNoReturn}, which tells whether this run is past it: before it a failure is undone,
 * after it the switch only goes forward.
 */
final class WriteSwitch {
  private static final Logger log = Workflow.getLogger(WriteSwitch.class);
  /**
   * Version marker: the write window also holds the Vitess shard lock of every source and target
   * shard, so no reparent runs between the positions, the barrier and the journal.
   */
  static final String SHARD_LOCKS = "shard-locks-in-the-write-window";
  /**
   * Version marker: with the shard locks held, every VTOrc the worker knows is asked about the
   * window's shards, and a problem it sees there refuses the window before anything is stopped.
   */
  static final String ASK_FAILOVER_TOOLS = "ask-failover-tools-before-the-write-window";
  /**
   * Version marker: under the shard locks the switch reads each shard's primary (alias and term)
   * and binds every later change on MySQL or tablets to it; a primary that changed refuses the
   * step. Before the journal the switch then undoes; after it, it plans again on the new primaries.
   */
  static final String PLAN_PRIMARIES = "plan-primaries-in-the-write-window";

  private final String action;
  private final SwitchTrafficRequest request;
  private final ProgressTracker progress;
  private final Compensations compensations;
  private final LockKeeper keeper;
  private final Steps steps;
  private final SwitchActivities quick = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  /** The reads before the window's first change (planSequences, checkFailoverTools, planPrimaries). */
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  private final FailoverToolActivities failoverTools = ReadStubs.of(FailoverToolActivities.class);
  /** Where the happy path's steps from checkJournals on run: local activities, or (older runs) activities. */
  private final SwitchActivities critical;
  /** The steps bounded by the request's timeout (the drain, the catch-up), with a minute to spare. */
  private final SwitchActivities criticalWithinTimeout;
  private final boolean localChain;
  /**
   * prepareSourceWrites: each statement's wait for transactions bounded by the request's timeout,
   * the statements' own work by the step's longer start-to-close; not retried once out of either.
   */
  private final SwitchActivities preparing;
  /** readReverseStreams, before the shard locks, in runs since Versions.LOCAL_CHECKS (used only then). */
  private final SwitchActivities checks;
  private final boolean localChecks;

  /** This run bound its steps to the primaries it planned ({@link #PLAN_PRIMARIES}). */
  private boolean primariesPlanned;
  private final PointOfNoReturn noReturn;

  /**
   * @param localChain the critical section as local activities (Versions.LOCAL_CRITICAL_SECTION)
   * @param localChecks the prepared barrier and the read of the reverse streams as local
   *     activities before the shard locks (Versions.LOCAL_CHECKS); only with {@code localChain}
   */
  WriteSwitch(String action, SwitchTrafficRequest request, ProgressTracker progress, Compensations compensations,
      LockKeeper keeper, Steps steps, Steps unlocked, boolean localChain, boolean localChecks) {
    this.action = action;
    this.request = request;
    this.progress = progress;
    this.compensations = compensations;
    this.keeper = keeper;
    this.steps = steps;
    this.localChain = localChain;
    this.localChecks = localChecks;
    preparing = localChecks
        ? Workflow.newLocalActivityStub(SwitchActivities.class, StepOptions.localPrepare(request.timeout()))
        : Workflow.newActivityStub(SwitchActivities.class, StepOptions.stepWithinTimeout(request.timeout()));
    checks = Workflow.newLocalActivityStub(SwitchActivities.class, StepOptions.localRead());
    if (localChain) {
      critical = Workflow.newLocalActivityStub(SwitchActivities.class, StepOptions.local(Duration.ofMinutes(2)));
      criticalWithinTimeout = Workflow.newLocalActivityStub(SwitchActivities.class,
          StepOptions.localWithinTimeout(request.timeout()));
    } else {
      critical = quick;
      criticalWithinTimeout = Workflow.newActivityStub(SwitchActivities.class,
          StepOptions.step(request.timeout().plus(Duration.ofMinutes(1))));
    }
    noReturn = new PointOfNoReturn(action, request, progress, compensations, keeper, steps, unlocked, quick,
        (w, attempt) -> primariesPlanned ? planPrimaries(w, "again, attempt " + attempt) : w);
  }

  boolean pastPointOfNoReturn() {
    return noReturn.past();
  }

  /**
   * Switches the writes of {@code w}, resuming after its journal when a run before wrote one, and
   * migrating the streams of other workflows that {@code migration} plans (a Reshard's).
   */
  void run(MigrationInfo w, StreamMigration migration) {
    progress.phase("switching writes");
    if (w.frozen()) {
      log.info("workflow {} is frozen: writes were already switched", w.qualifiedName());
      return;
    }
    // Read before the write window, under the keyspace locks: nothing in it changes VSchemas.
    SequencePlan sequences = planSequences(w);
    if (Versions.preparedBarrier()) {
      prepareSourceBarrier(w);
    }
    // What the undo of createReverseVReplication restores, read under the keyspace locks (only
    // actions holding them change these streams; a reparent does not). The task running it ends by
    // scheduling acquireShardLocks, which records it before the window (Versions.LOCAL_CHECKS: a
    // run that asks it asks SHARD_LOCKS after it, so gets the shard locks too).
    List<SavedStream> savedEarly = localChecks ? readReverseStreams(w, checks) : null;
    if (Workflow.getVersion(SHARD_LOCKS, Workflow.DEFAULT_VERSION, 1) >= 1) {
      progress.phase("locking shards");
      List<String> shards = shardsOf(w);
      keeper.lockShards(shards);
      if (Workflow.getVersion(ASK_FAILOVER_TOOLS, Workflow.DEFAULT_VERSION, 1) >= 1) {
        // Under the shard locks VTOrc can start no recovery of its own, so what it sees now holds
        // for the window; a problem it sees is one it is about to repair, or cannot.
        String refusal = steps.run("checkFailoverTools", "VTOrc on " + String.join(",", shards),
            () -> failoverTools.checkFailoverTools(shards));
        if (refusal != null && !refusal.isEmpty()) {
          throw ApplicationFailure.newNonRetryableFailure("cannot switch writes for workflow " + w.qualifiedName()
              + " now: " + refusal + ". Nothing was stopped; run the switch again once the failover tool is done.",
              ErrorCode.FAILED_PRECONDITION.name());
        }
      }
      if (Workflow.getVersion(PLAN_PRIMARIES, Workflow.DEFAULT_VERSION, 1) >= 1) {
        primariesPlanned = true;
      }
      progress.phase("switching writes");
    }
    // Forward steps act on the planned primaries only; the undos are registered with the
    // switcher as read, so they reach whichever server is primary by then (the barrier they lift
    // is replicated, and a promoted replica has it).
    MigrationInfo f = primariesPlanned ? planPrimaries(w, "the primaries of the write window") : w;
    // A local chain is recorded only when its workflow task completes; a worker that dies before
    // leaves it unrecorded, and the next one runs it again from checkJournals against what the
    // dead pass changed. So what its undo needs is read and recorded before it (above, or here by
    // an activity in older runs), and checkJournals opens it (a dead pass may have written the journal).
    List<SavedStream> savedFirst = localChain && savedEarly == null ? readReverseStreams(w, quick) : savedEarly;
    boolean journaled = steps.run("checkJournals", "migration id " + w.migrationId(),
        () -> critical.checkJournals(f));
    Map<String, String> sourcePositions;
    Map<String, String> targetPositions;
    List<String> migrated = List.of();
    if (!journaled) {
      if (!migration.isEmpty()) {
        // Registered before stopSourceWrites' undo, so it runs after it: the migrated streams start
        // again on the sources once writes are allowed there, as Vitess cancels a migration.
        compensations.addAhead("stopStreams", "cancelStreamMigration", migration.workflows()
            + " running on " + w.sourceKeyspace() + " " + w.sourceShards() + " again, none on the targets",
            () -> quick.cancelStreamMigration(w, migration, keeper.locks()));
      }
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
          () -> criticalWithinTimeout.stopSourceWrites(f, request.timeout(), keeper.locks()));
      if (!migration.isEmpty()) {
        compensations.starting("stopStreams");
      }
      StreamMigration stopped = migration.isEmpty() ? migration
          : steps.run("stopStreams", migration.workflows() + " on " + w.sourceKeyspace() + " " + w.sourceShards()
              + ", brought to one position", () -> criticalWithinTimeout.stopStreams(f, migration, request.timeout(),
                  keeper.locks()));
      sourcePositions = steps.run("gatherSourcePositions", "after the barrier",
          () -> critical.gatherSourcePositions(f));
      if (localChain) {
        compensations.starting("waitForCatchup");
      } else {
        compensations.add("waitForCatchup", "restartStreams", "streams of " + w.workflow() + " running again",
            () -> quick.restartStreams(w, keeper.locks()));
      }
      targetPositions = steps.run("waitForCatchup", "up to " + GoDurations.format(request.timeout()),
          () -> criticalWithinTimeout.waitForCatchup(f, sourcePositions, request.timeout(), keeper.locks()));
      if (!stopped.isEmpty()) {
        steps.run("migrateStreams", stopped.workflows() + " created Stopped on " + w.targetKeyspace() + " "
            + w.targetShards(), () -> critical.migrateStreams(f, stopped, keeper.locks()));
      }
      migrated = stopped.workflows();
      if (sequences.resetSourceSequences()) {
        // No undo: a dropped cache is reloaded from the sequence table on the next id asked for.
        steps.run("resetSequences", "cached ids of the moved sequence tables dropped on " + w.sourceKeyspace(),
            () -> critical.resetSequences(f, keeper.locks()));
      }
      if (localChain) {
        compensations.starting("createReverseVReplication");
      } else {
        List<SavedStream> saved = readReverseStreams(w, quick);
        compensations.add("createReverseVReplication", "restoreReverseVReplication",
            w.reverseWorkflow() + " as it was (" + saved.size() + " rows)",
            () -> quick.restoreReverseVReplication(w, saved, keeper.locks()));
      }
      steps.run("createReverseVReplication", w.reverseWorkflow() + " Stopped from the target positions",
          () -> critical.createReverseVReplication(f, targetPositions, keeper.locks()));
      if (!sequences.initialize().isEmpty()) {
        // No undo: a sequence only moves up, and an id it skips is never handed out.
        steps.run("initializeTargetSequences", sequenceTables(sequences) + " past the highest ids on "
            + w.targetKeyspace(), () -> critical.initializeTargetSequences(f, sequences, keeper.locks()));
      }
    } else {
      ShardPositions now = steps.run("gatherPositions", "resuming after the journal",
          () -> critical.gatherPositions(f));
      sourcePositions = now.source();
      targetPositions = now.target();
    }
    // The point of no return: once a journal row exists the switch only goes forward, and a
    // rerun resumes here. Whether a failed createJournals wrote one is settled by reading it back.
    noReturn.cross(f, "point of no return, migration id " + w.migrationId(), sourcePositions, targetPositions,
        migrated, critical);
  }

  /**
   * What the switch does to sequences ({@link Versions#SEQUENCES}): nothing for a Reshard, and for
   * runs from before the change.
   */
  private SequencePlan planSequences(MigrationInfo w) {
    if (w.migrationType() != MigrationType.TABLES || !Versions.sequences()) {
      return SequencePlan.NONE;
    }
    boolean initialize = request.initializeTargetSequences();
    return steps.run("planSequences", initialize ? "sequences of the moved tables, to initialize"
        : "do sequence tables move?", () -> reads.planSequences(w, initialize));
  }

  /**
   * Before the shard locks and the write window ({@link Versions#PREPARED_BARRIER}): the source's
   * barrier installed dormant, so stopSourceWrites is one flip per primary. Its undo removes only
   * what does not deny writes, so it is right however far the switch got before failing.
   */
  private void prepareSourceBarrier(MigrationInfo w) {
    // This run owns what it prepares; its undo removes exactly that, never a barrier found dormant.
    String owner = "run " + Workflow.getInfo().getRunId();
    compensations.add("prepareSourceWrites", "removePreparedSourceBarrier",
        "dormant barrier on " + w.sourceKeyspace() + " removed",
        () -> quick.removePreparedSourceBarrier(w, owner, keeper.locks()));
    steps.run("prepareSourceWrites", "dormant barrier on " + w.sourceKeyspace() + " " + w.sourceShards(),
        () -> preparing.prepareSourceWrites(w, owner, request.timeout(), keeper.locks()));
  }

  static String sequenceTables(SequencePlan plan) {
    return plan.initialize().stream().map(s -> s.qualifiedBackingTable()).distinct().sorted().toList().toString();
  }

  private static List<String> shardsOf(MigrationInfo w) {
    List<String> shards = new java.util.ArrayList<>();
    w.sourceShards().forEach(s -> shards.add(LockRequest.shard(w.sourceKeyspace(), s)));
    w.targetShards().forEach(s -> shards.add(LockRequest.shard(w.targetKeyspace(), s)));
    return shards;
  }

  private MigrationInfo planPrimaries(MigrationInfo w, String detail) {
    return steps.run("planPrimaries", detail, () -> reads.planPrimaries(w));
  }

  private List<SavedStream> readReverseStreams(MigrationInfo w, SwitchActivities via) {
    return steps.run("readReverseStreams", w.reverseWorkflow() + " on " + w.sourceKeyspace(),
        () -> via.readReverseStreams(w));
  }

  /** See {@link PointOfNoReturn#settle}. */
  void settlePointOfNoReturn(MigrationInfo w) {
    noReturn.settle(w);
  }

  /** See {@link PointOfNoReturn#finishAfterFailure}. */
  void finishAfterFailure(MigrationInfo w) {
    noReturn.finishAfterFailure(w);
  }
}
