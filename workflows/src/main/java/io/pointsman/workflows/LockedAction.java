package io.pointsman.workflows;

import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.model.ActionResult;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The frame every action that changes the topology shares: read and plan without the locks, stop
 * there for a dry run, take the locks, read again under them and decide anew (another action may
 * have held them meanwhile), act, give the locks back. The deciding again is behind a version
 * marker of each action's own, so runs from before it replay without it.
 *
 * <p>The order of the commands this issues is what recorded histories replay against: phases (search
 * attribute upserts), the hook before locking, acquireLocks, the marker, the action, releaseLocks.
 *
 * @param <P> what the action decided to do, from the reads before the locks and then from those under them
 */
abstract class LockedAction<P> {
  protected final String action;
  protected final ProgressTracker progress;
  /** Read-only steps without the locks: nothing to race against. */
  protected final Steps unlocked;
  /** Set once the action goes past its dry run. */
  protected LockKeeper keeper;
  /** The steps run under the locks, raced against their loss. */
  protected Steps locked;
  private final RunSettings settings;

  LockedAction(String action, ProgressTracker progress, RunSettings settings) {
    this.action = action;
    this.progress = progress;
    this.unlocked = new Steps(progress, null);
    this.settings = settings;
  }

  /** What to do, from reads made before the locks with {@link #unlocked}. */
  protected abstract P plan();

  protected abstract ActionResult dryRun(P plan);

  protected abstract LockRequest lockRequest(P plan);

  /** The request for this action's locks: the named lock, then the keyspaces', for the settings' TTL and hold. */
  protected final LockRequest locksFor(String namedLock, List<String> keyspaces) {
    return new LockRequest(namedLock, keyspaces, action, settings.lockTtl(), settings.maxLockHold());
  }

  /** Called once the keeper exists, before the locks are taken. */
  protected void beforeLocking() {}

  /** The change id under which {@link #decideAgain} runs; older runs did not read again. */
  protected abstract String decideAgainChange();

  /** Reads again under the locks and returns what to do now (or fails the action when it may no longer run). */
  protected abstract P decideAgain(P before);

  /** The action's changes, under the locks. */
  protected abstract void act(P plan);

  /**
   * A failure while locked: undo, finish or only describe it. Runs before the locks are given back.
   *
   * @return the failure the action ends with, or null when it recovered and ends as a success
   */
  protected abstract RuntimeException failed(RuntimeException failure, P plan);

  /** The result of a success, after the locks were given back. */
  protected abstract ActionResult succeeded(P plan);

  final ActionResult run() {
    progress.phase("reading state");
    P planned = plan();
    if (settings.dryRun()) {
      return dryRun(planned);
    }
    keeper = new LockKeeper(lockRequest(planned), progress);
    locked = new Steps(progress, keeper);
    beforeLocking();
    P plan = planned;
    try {
      progress.phase("locking");
      keeper.acquire();
      if (Workflow.getVersion(decideAgainChange(), Workflow.DEFAULT_VERSION, 1) >= 1) {
        plan = decideAgain(planned);
      }
      act(plan);
      progress.phase("done");
    } catch (RuntimeException e) {
      RuntimeException outcome = failed(e, plan);
      if (outcome != null) {
        throw outcome;
      }
    } finally {
      keeper.release();
    }
    return succeeded(plan);
  }
}
