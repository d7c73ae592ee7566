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
 * compensation registered before each step and the journal as the point of no return, which this
 * class owns: before it a failure is undone, after it the switch only goes forward.
 */
final class WriteSwitch {
  private static final Logger log = Workflow.getLogger(WriteSwitch.class);
  /** Version marker: a failed createJournals is settled by reading the journal back, and completed after it. */
  static final String JOURNAL_READ_BACK = "journal-read-back-and-completed";
  /**
   * Version marker: past the journal a failed step no longer ends the switch unfinished (the source
   * denied, routing still on it); the switch tries again, with backoff shown in its progress,
   * until it finishes or its locks are lost for good.
   */
  static final String KEEP_FINISHING = "keep-finishing-past-the-journal";
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
  private static final Duration FIRST_RETRY = Duration.ofSeconds(2);
  private static final Duration LONGEST_RETRY = Duration.ofMinutes(1);

  private final String action;
  private final SwitchTrafficRequest request;
  private final ProgressTracker progress;
  private final Compensations compensations;
  private final LockKeeper keeper;
  private final Steps steps;
  /** Read-only steps that must not race the locks: reading the journal back after a failure. */
  private final Steps unlocked;
  private final SwitchActivities quick = Workflow.newActivityStub(SwitchActivities.class, StepOptions.step());
  /** The reads before the window's first change (planSequences, checkFailoverTools, planPrimaries). */
  private final SwitchActivities reads = ReadStubs.of(SwitchActivities.class);
  private final FailoverToolActivities failoverTools = ReadStubs.of(FailoverToolActivities.class);
  /** Where the happy path's steps from checkJournals on run: local activities, or (older runs) activities. */
  private final SwitchActivities critical;
  /** The steps bounded by the request's timeout (the drain, the catch-up), with a minute to spare. */
  private final SwitchActivities criticalWithinTimeout;
  private final boolean localChain;
  /** prepareSourceWrites: bounded by the request's timeout, and not retried once it ran out of it. */
  private final SwitchActivities preparing;

  private boolean pastPointOfNoReturn;
  /** This run bound its steps to the primaries it planned ({@link #PLAN_PRIMARIES}). */
  private boolean primariesPlanned;
  /** createJournals was started: from then on a failure may have left a journal behind. */
  private boolean journalAttempted;
  /** The positions the journal is written with, kept to write it again where it is missing. */
  private Map<String, String> journalSourcePositions;
  private Map<String, String> journalTargetPositions;
  /** The workflows whose streams this run migrated, which the journal names. */
  private List<String> migratedWorkflows = List.of();

  /** @param localChain the critical section as local activities (Versions.LOCAL_CRITICAL_SECTION) */
  WriteSwitch(String action, SwitchTrafficRequest request, ProgressTracker progress, Compensations compensations,
      LockKeeper keeper, Steps steps, Steps unlocked, boolean localChain) {
    this.action = action;
    this.request = request;
    this.progress = progress;
    this.compensations = compensations;
    this.keeper = keeper;
    this.steps = steps;
    this.unlocked = unlocked;
    this.localChain = localChain;
    preparing = Workflow.newActivityStub(SwitchActivities.class, StepOptions.stepWithinTimeout(request.timeout()));
    if (localChain) {
      critical = Workflow.newLocalActivityStub(SwitchActivities.class, StepOptions.local(Duration.ofMinutes(2)));
      criticalWithinTimeout = Workflow.newLocalActivityStub(SwitchActivities.class,
          StepOptions.localWithinTimeout(request.timeout()));
    } else {
      critical = quick;
      criticalWithinTimeout = Workflow.newActivityStub(SwitchActivities.class,
          StepOptions.step(request.timeout().plus(Duration.ofMinutes(1))));
    }
  }

  boolean pastPointOfNoReturn() {
    return pastPointOfNoReturn;
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
    // dead pass changed. So what its undo needs is read by an activity, recorded, before it, and
    // checkJournals opens it (a dead pass may have written the journal).
    List<SavedStream> savedFirst = localChain ? readReverseStreams(w, quick) : null;
    boolean journaled = steps.run("checkJournals", "migration id " + w.migrationId(),
        () -> critical.checkJournals(f));
    Map<String, String> sourcePositions;
    Map<String, String> targetPositions;
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
      migratedWorkflows = stopped.workflows();
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
    journalSourcePositions = sourcePositions;
    journalTargetPositions = targetPositions;
    journalAttempted = true;
    createJournals(f, "point of no return, migration id " + w.migrationId(), critical);
    pastPointOfNoReturn = true;
    compensations.clear();
    finishForward(f, critical);
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

  private void createJournals(MigrationInfo w, String detail, SwitchActivities via) {
    Map<String, String> sources = journalSourcePositions;
    Map<String, String> targets = journalTargetPositions;
    List<String> workflows = migratedWorkflows;
    steps.run("createJournals", detail, () -> via.createJournals(w, sources, targets, workflows, keeper.locks()));
  }

  /**
   * After a failure, cancellation or lost lock from createJournals on: a journal may have been
   * written on some sources although the step did not report success (it failed after an insert,
   * or its result was lost to a cancellation). Compensating then would reopen the sources under a
   * journal that a rerun trusts, so read the journals back; when that read fails too, assume the
   * worst and only go forward. Runs detached from cancellation; read-only, so without the locks.
   */
  void settlePointOfNoReturn(MigrationInfo w) {
    if (!journalAttempted || pastPointOfNoReturn
        || Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) < 1) {
      return;
    }
    boolean journaled;
    try {
      journaled = unlocked.run("checkJournals", "did createJournals write before it stopped?",
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
   * Past the point of no return after a failure, a cancellation or a lost lock: finish the switch
   * with activities, under the (possibly re-acquired) locks, re-acquiring them up to twice more.
   * Runs in a detached scope.
   */
  void finishAfterFailure(MigrationInfo w) {
    progress.phase("finishing after the point of no return");
    boolean keepTrying = keepFinishing();
    Duration wait = FIRST_RETRY;
    for (int attempt = 1, locksLost = 0; ; attempt++) {
      try {
        // A primary that changed since the plan fails the steps bound to it; past the journal the
        // switch does not undo, so it plans again on the primaries there are now.
        MigrationInfo current = primariesPlanned ? planPrimaries(w, "again, attempt " + attempt) : w;
        if (journalSourcePositions != null
            && Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) >= 1) {
          // idempotent: writes the journal only on sources that lack it (a createJournals cut short)
          createJournals(current, "ensuring every source has the journal", quick);
        }
        finishForward(current, quick);
        return;
      } catch (LockLostSignal again) {
        if (++locksLost >= 3) {
          // A workflow must fail with a Temporal failure: anything else retries its task forever.
          throw ApplicationFailure.newNonRetryableFailure(again.getMessage() + "; the journal is written:"
              + " rerun " + action + " to finish the switch.", ErrorCode.LOCK_LOST.name());
        }
        keeper.reacquire();
      } catch (RuntimeException failed) {
        if (!keepTrying) {
          throw failed;
        }
        // Giving up here would leave the sources denied and routing on them: an outage until a
        // rerun. Every step after the journal is idempotent, so try again, longer apart each time.
        progress.phase("past the point of no return: attempt " + attempt + " failed (" + Failures.message(failed)
            + "); trying again in " + GoDurations.format(wait));
        log.warn("{}: finishing after the journal failed (attempt {}), trying again in {}: {}", action, attempt,
            wait, Failures.message(failed));
        Workflow.sleep(wait);
        wait = wait.multipliedBy(2).compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : wait.multipliedBy(2);
        progress.phase("finishing after the point of no return");
      }
    }
  }

  static boolean keepFinishing() {
    return Workflow.getVersion(KEEP_FINISHING, Workflow.DEFAULT_VERSION, 1) >= 1;
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
    if (w.migrationType() == MigrationType.SHARDS && Versions.migrateStreams()) {
      // Reads the workflows from the journal, so a rerun after the journal finishes them too.
      steps.run("finalizeStreamMigration", "migrated streams off " + w.sourceShards() + ", started on "
          + w.targetShards(), () -> via.finalizeStreamMigration(w, keeper.locks()));
    }
    if (request.enableReverseReplication()) {
      steps.run("startReverseVReplication", w.reverseWorkflow(),
          () -> via.startReverseVReplication(w, keeper.locks()));
    }
    steps.run("freezeTargetVReplication", w.workflow() + " FROZEN",
        () -> via.freezeTargetVReplication(w, keeper.locks()));
  }
}
