package io.pointsman.workflows;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.request.GoDurations;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;

/**
 * The journal as the point of no return of one write switch ({@link WriteSwitch}): writing it,
 * whether this run is past it, what it was written with, and the steps after it, on the happy path
 * and when finishing after a failure. Before the journal a failure is undone; after it the switch
 * only goes forward.
 */
final class PointOfNoReturn {
  private static final Logger log = Workflow.getLogger(PointOfNoReturn.class);
  /** Version marker: a failed createJournals is settled by reading the journal back, and completed after it. */
  static final String JOURNAL_READ_BACK = "journal-read-back-and-completed";
  /**
   * Version marker: past the journal a failed step no longer ends the switch unfinished (the source
   * denied, routing still on it); the switch tries again, with backoff shown in its progress,
   * until it finishes or its locks are lost for good.
   */
  static final String KEEP_FINISHING = "keep-finishing-past-the-journal";
  private static final Duration FIRST_RETRY = Duration.ofSeconds(2);
  private static final Duration LONGEST_RETRY = Duration.ofMinutes(1);

  private final String action;
  /** Whether the switch starts the reverse streams after the journal (the request's enableReverseReplication). */
  private final boolean startReverse;
  private final Steps steps;
  /** Read-only steps that must not race the locks: reading the journal back after a failure. */
  private final Steps unlocked;
  /** The steps when finishing after a failure, and the read-back of the journal: activities. */
  private final SwitchActivities quick;
  private final LockKeeper keeper;
  private final Compensations compensations;
  private final ProgressTracker progress;
  /** The switching workflow on the primaries there are now, before attempt n of finishing after a failure. */
  private final BiFunction<MigrationInfo, Integer, MigrationInfo> replan;

  private boolean past;
  /** createJournals was started: from then on a failure may have left a journal behind. */
  private boolean attempted;
  /** The positions the journal is written with, kept to write it again where it is missing. */
  private Map<String, String> sourcePositions;
  private Map<String, String> targetPositions;
  /** The workflows whose streams this run migrated, which the journal names. */
  private List<String> migratedWorkflows = List.of();

  PointOfNoReturn(String action, SwitchTrafficRequest request, ProgressTracker progress, Compensations compensations,
      LockKeeper keeper, Steps steps, Steps unlocked, SwitchActivities quick,
      BiFunction<MigrationInfo, Integer, MigrationInfo> replan) {
    this.action = action;
    this.startReverse = request.enableReverseReplication();
    this.steps = steps;
    this.unlocked = unlocked;
    this.quick = quick;
    this.keeper = keeper;
    this.compensations = compensations;
    this.progress = progress;
    this.replan = replan;
  }

  boolean past() {
    return past;
  }

  static boolean keepFinishing() {
    return Workflow.getVersion(KEEP_FINISHING, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /**
   * Writes the journal (the point of no return: once a journal row exists the switch only goes
   * forward, and a rerun resumes there), then runs the steps after it through {@code via}.
   */
  void cross(MigrationInfo w, String detail, Map<String, String> sources, Map<String, String> targets,
      List<String> migrated, SwitchActivities via) {
    sourcePositions = sources;
    targetPositions = targets;
    migratedWorkflows = migrated;
    attempted = true;
    createJournals(w, detail, via);
    past = true;
    compensations.clear();
    finishForward(w, via);
  }

  private void createJournals(MigrationInfo w, String detail, SwitchActivities via) {
    Map<String, String> sources = sourcePositions;
    Map<String, String> targets = targetPositions;
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
  void settle(MigrationInfo w) {
    if (!attempted || past || Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) < 1) {
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
      past = true;
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
        MigrationInfo current = replan.apply(w, attempt);
        if (sourcePositions != null && Workflow.getVersion(JOURNAL_READ_BACK, Workflow.DEFAULT_VERSION, 1) >= 1) {
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
    if (startReverse) {
      steps.run("startReverseVReplication", w.reverseWorkflow(),
          () -> via.startReverseVReplication(w, keeper.locks()));
    }
    steps.run("freezeTargetVReplication", w.workflow() + " FROZEN",
        () -> via.freezeTargetVReplication(w, keeper.locks()));
  }
}
