package io.pointsman.workflows;

import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.activities.LockActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.StepStatus;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Holds the locks of one action across its steps (docs/locks.md §9): acquires them, keeps the
 * heartbeating {@code holdLocks} activity running in a detached scope (so cancelling the workflow
 * does not stop renewal while compensation still needs the locks), exposes the moment a lock is
 * lost, re-acquires after a loss, and releases at the end. The write window adds the shard locks of
 * its shards ({@link #lockShards}): held by a holdLocks of their own, lost like the others, part of
 * {@link #locks()} (so every change is fenced with them too), taken again after a loss and released
 * with the rest.
 */
final class LockKeeper {
  /** How long a release waits for holdLocks to end after revoking (Versions.LOCAL_CRITICAL_SECTION). */
  private static final Duration HOLD_END_WAIT = Duration.ofSeconds(1);
  /**
   * How long local steps after an acquisition wait for holdLocks to report that it renews the
   * leases (Versions.HOLDING_SIGNAL). Past it they run anyway, as they did after the timer: every
   * change is fenced by the locks, and a holdLocks that never starts lets them expire.
   */
  private static final Duration HOLD_START_WAIT = Duration.ofSeconds(5);
  private final LockRequest request;
  private final ProgressTracker progress;
  private final LockActivities acquirer = Workflow.newActivityStub(LockActivities.class, StepOptions.acquire());
  private final LockActivities releaser = Workflow.newActivityStub(LockActivities.class, StepOptions.release());
  /** The first try of each acquisition, in runs since Versions.LOCAL_ACQUIRE. */
  private final LockActivities localAcquirer =
      Workflow.newLocalActivityStub(LockActivities.class, StepOptions.localTryAcquire());
  /** The revoke at the end, in runs since Versions.LOCAL_READS. */
  private final LockActivities localReleaser =
      Workflow.newLocalActivityStub(LockActivities.class, StepOptions.localRelease());
  private final LockActivities holder;

  private LockSet locks;
  private CancellationScope holdScope;
  private Promise<Void> holding;
  /** The write window's shard locks: asked for once, taken again after a loss; null before. */
  private LockRequest shardRequest;
  private LockSet shardLocks;
  private CancellationScope shardHoldScope;
  private Promise<Void> shardHolding;
  private CompletablePromise<String> loss;
  private boolean stopping;
  /** Steps stamped so far: orders the steps of one workflow task, which share its time. */
  private long stamps;
  /** The fencing tokens of the lock sets whose holdLocks reported it renews them (HoldingStarted). */
  private final Set<Long> renewing = new HashSet<>();

  LockKeeper(LockRequest request, ProgressTracker progress) {
    this.request = request;
    this.progress = progress;
    this.holder = Workflow.newActivityStub(LockActivities.class, StepOptions.hold(request.ttl(), request.maxHold()));
    // Registered in every run (it issues no command), so a signal is handled whichever version runs.
    Workflow.registerListener(new HoldingListener());
  }

  /** Records holdLocks's report; a class of its own, as the SDK registers the signal methods of its interfaces. */
  private final class HoldingListener implements HoldingStarted {
    @Override
    public void holdLocksStarted(long fencingToken) {
      renewing.add(fencingToken);
    }
  }

  void acquire() {
    String detail = "named lock " + request.namedLock() + ", keyspaces " + String.join(",", request.keyspaces())
        + ", ttl " + request.ttl().toSeconds() + "s";
    locks = acquireAsStep("acquireLocks", detail, request, "locks");
    progress.locks(locks);
    startHolding();
  }

  /**
   * Takes the locks {@code r} asks for as the progress step {@code name}; its result counts them as
   * {@code what}. Detached: a cancelled acquireLocks would leave the workflow not knowing whether the
   * activity, still running, took the locks, and nobody would release them. Acquisition is bounded by
   * its own deadline; a cancellation is then seen by the next step, and the locks released.
   */
  private LockSet acquireAsStep(String name, String detail, LockRequest r, String what) {
    int step = progress.start(name, detail);
    AtomicReference<LockSet> acquired = new AtomicReference<>();
    try {
      Workflow.newDetachedCancellationScope(() -> {
        if (Versions.localAcquire()) {
          acquired.set(tryLocally(r));
        }
        if (acquired.get() == null) {
          acquired.set(acquirer.acquireLocks(r));
        }
      }).run();
    } catch (RuntimeException e) {
      progress.finish(step, StepStatus.FAILED, Failures.message(e));
      throw e;
    }
    LockSet taken = acquired.get();
    progress.finish(step, StepStatus.DONE, taken.locks().size() + " " + what + ", fencing token "
        + taken.fencingToken());
    return taken;
  }

  /**
   * The locks if they were free to take at once (Versions.LOCAL_ACQUIRE), else null: then someone
   * holds one (or etcd answered slowly), and acquireLocks waits for it as an activity, showing whom
   * for. Whatever the local try failed with, the activity meets it again and reports it as before.
   * Taken locally, the locks are recorded with the task's other markers when it completes by
   * scheduling holdLocks; a worker that dies first leaves them unrecorded, and they expire (the
   * taking worker renews them for half a TTL only), as after an acquireLocks attempt that timed out.
   */
  private LockSet tryLocally(LockRequest r) {
    try {
      return localAcquirer.tryAcquireLocks(r, Workflow.currentTimeMillis());
    } catch (ActivityFailure e) {
      progress.waitingFor("not free at once (" + Failures.message(e) + "); waiting as an activity");
      return null;
    }
  }

  private void startHolding() {
    stopping = false;
    CompletablePromise<String> lost = Workflow.newPromise();
    loss = lost;
    LockSet held = locks;
    holdScope = Workflow.newDetachedCancellationScope(() -> holding = Async.procedure(holder::holdLocks, held));
    holdScope.run();
    reportLoss(holding, lost);
    flushIfLocal(held, holding);
  }

  private void reportLoss(Promise<Void> hold, CompletablePromise<String> lost) {
    hold.handle((ok, failure) -> {
      if (!stopping && !lost.isCompleted()) {
        lost.complete(failure == null ? "holdLocks stopped unexpectedly" : Failures.message(failure));
      }
      return null;
    });
  }

  /**
   * Takes the shard locks of the write window, after the named and keyspace locks this keeper holds
   * (one global order: named, keyspaces, shards), and holds them until {@link #release}. Vitess's
   * reparents (PlannedReparentShard, EmergencyReparentShard, VTOrc's recoveries) take these locks,
   * so none runs while the window is open, and the window waits for one that runs.
   *
   * @param shards {@code <keyspace>/<shard>} names
   */
  void lockShards(List<String> shards) {
    shardRequest = LockRequest.shardsOnly(shards, request.action(), request.ttl(), request.maxHold());
    acquireShards();
  }

  private void acquireShards() {
    String detail = "shards " + String.join(",", shardRequest.shards()) + ", ttl " + shardRequest.ttl().toSeconds()
        + "s";
    shardLocks = acquireAsStep("acquireShardLocks", detail, shardRequest, "shard locks");
    progress.locks(locks());
    LockSet held = shardLocks;
    shardHoldScope = Workflow.newDetachedCancellationScope(
        () -> shardHolding = Async.procedure(holder::holdLocks, held));
    shardHoldScope.run();
    reportLoss(shardHolding, loss);
    flushIfLocal(held, shardHolding);
  }

  private void flushIfLocal(LockSet held, Promise<Void> hold) {
    if (Versions.holdingSignal()) {
      // Until holdLocks renews the leases, or has ended (its loss is then reported as before).
      // Detached: a cancellation arriving now is seen by the next step, with the locks known and held.
      long token = held.fencingToken();
      Workflow.newDetachedCancellationScope(() -> Workflow.await(HOLD_START_WAIT,
          () -> renewing.contains(token) || hold.isCompleted())).run();
      return;
    }
    if (Versions.localCriticalSection()) {
      // Local activities run inside this workflow task, and a task's commands reach the server only
      // when it ends: without a task boundary here, holdLocks would not even be scheduled before
      // a chain of local steps ended, and the leases could run out under it.
      // Detached: a cancellation arriving now is seen by the next step, with the locks known and held.
      Workflow.newDetachedCancellationScope(() -> Workflow.sleep(Duration.ofMillis(1))).run();
    }
  }

  /**
   * The current locks, shard locks last, read at the moment of each call (so compensation after a
   * re-acquire uses the new ones), stamped with a fence epoch of their own (Versions.STEP_EPOCHS):
   * each step's is higher than every earlier step's in this run, and a pass re-run after a lost
   * workflow task starts from a later workflow time, so the MySQL fence tells executions under the
   * same locks apart (docs/locks.md §8). The low ten bits are left for the activity's attempt.
   */
  LockSet locks() {
    LockSet all = locks;
    if (locks != null && shardLocks != null) {
      List<LockToken> tokens = new ArrayList<>(locks.locks());
      tokens.addAll(shardLocks.locks());
      all = new LockSet(tokens);
    }
    if (all == null || !Versions.stepEpochs()) {
      return all;
    }
    return all.stampedForStep(Workflow.currentTimeMillis(), stamps++);
  }

  boolean held() {
    return locks != null;
  }

  /** Completes with the reason when a lock is seen lost; never completes while the locks hold. */
  Promise<String> loss() {
    return loss;
  }

  boolean lost() {
    return loss != null && loss.isCompleted();
  }

  /** After a loss: let go of what is left of the old locks, take new ones, hold them. */
  void reacquire() {
    String why = lost() ? loss.get() : "requested";
    if (Versions.revokeBeforeReacquire()) {
      letGoOfTheOldLeases(why);
    } else {
      stopHolding();
      int step = progress.start("releaseLocks", "releasing the old leases after: " + why);
      try {
        releaser.releaseLocks(locks());
        progress.finish(step, StepStatus.DONE, null);
      } catch (RuntimeException e) {
        // The old leases are gone or going; a failed revoke only means they expire on their own.
        progress.finish(step, StepStatus.FAILED, Failures.message(e));
      }
    }
    locks = null;
    shardLocks = null;
    progress.locks(null);
    acquire();
    if (shardRequest != null) {
      // the undo or the finish after a loss changes the same shards: it excludes reparents as well
      acquireShards();
    }
  }

  /**
   * Revokes the old leases, then lets each holdLocks end on its own: it ends once it sees its leases
   * gone (at once in the revoking worker, within a renewal elsewhere), and a loss it reports then is
   * no loss of the new locks (stopping). It is cancelled only when the revoke failed, so that nothing
   * renews leases that may still be alive. A cancellation issued while holdLocks may be ending could
   * cross its completion: after a lost workflow task the re-run chain's first fenced step finds the
   * leases revoked by the unrecorded pass, and both holdLocks, seeing them gone too, complete within
   * the very task that handles the loss; the SDK's test server (dev mode) refuses that task for good.
   * A short wait for their ends, detached as the release's, keeps the usual history tidy; nothing
   * depends on it.
   */
  private void letGoOfTheOldLeases(String why) {
    stopping = true;
    boolean revoked = revoke(releaser, why);
    Workflow.newDetachedCancellationScope(() -> letHoldingEnd(revoked)).run();
  }

  /** Stops renewal and revokes the leases; safe to call when nothing is held. Runs detached. */
  void release() {
    if (locks == null) {
      return;
    }
    Workflow.newDetachedCancellationScope(() -> {
      if (Versions.localReads()) {
        releaseLocally();
        return;
      }
      boolean revokeFirst = Versions.localCriticalSection();
      if (revokeFirst) {
        // The leases are revoked without first waiting for holdLocks to see its cancellation (which
        // reaches it only with a heartbeat's answer): it cannot renew a revoked lease, and it ends
        // at once when the revoke runs in its own worker, else on the cancellation.
        stopping = true;
        if (holdScope != null) {
          holdScope.cancel();
        }
        if (shardHoldScope != null) {
          shardHoldScope.cancel();
        }
      } else {
        stopHolding();
      }
      // An activity here, after the cancellations: a local revoke would run inside this very task,
      // and holdLocks, ending when it sees the revoke, would complete before the server recorded
      // its cancellation, making it invalid (releaseLocally revokes first instead).
      revoke(releaser, null);
      if (revokeFirst && holdScope != null) {
        if (!holding.isCompleted()) {
          // A short wait, so holdLocks usually reports before the workflow closes; nothing depends on it.
          Workflow.await(HOLD_END_WAIT, holding::isCompleted);
        }
        holdScope = null;
      }
      if (revokeFirst && shardHoldScope != null) {
        if (!shardHolding.isCompleted()) {
          Workflow.await(HOLD_END_WAIT, shardHolding::isCompleted);
        }
        shardHoldScope = null;
      }
      forget();
    }).run();
  }

  /**
   * The revoke as a local activity, with holdLocks left running: a cancellation issued first would
   * reach the server only when this task ends, after holdLocks, seeing the revoke in its worker, had
   * already completed. Once the leases are revoked holdLocks ends on its own (at once in this
   * worker; elsewhere when it sees its leases gone, or when a heartbeat finds the workflow closed),
   * and its end is no loss; it is not cancelled then, as a cancellation could cross its completion,
   * which the SDK's test server (dev mode) refuses. When the revoke failed it is cancelled, so that
   * nothing renews the leases and they expire within their TTL.
   */
  private void releaseLocally() {
    stopping = true;
    letHoldingEnd(revoke(localReleaser, null));
    forget();
  }

  /**
   * After the revoke: holdLocks ends on its own once it sees its leases gone, and a short wait lets
   * it report before the workflow goes on (nothing depends on it); only when the revoke failed is it
   * cancelled, so that nothing renews leases that may still be alive.
   */
  private void letHoldingEnd(boolean revoked) {
    if (revoked) {
      if (!ended(holding) || !ended(shardHolding)) {
        Workflow.await(HOLD_END_WAIT, () -> ended(holding) && ended(shardHolding));
      }
    } else {
      if (holdScope != null) {
        holdScope.cancel();
      }
      if (shardHoldScope != null) {
        shardHoldScope.cancel();
      }
    }
    holdScope = null;
    shardHoldScope = null;
  }

  /**
   * The releaseLocks step, at the end or ({@code afterLoss} not null) before a re-acquisition; a
   * failed revoke only means the leases expire on their own.
   */
  private boolean revoke(LockActivities via, String afterLoss) {
    LockSet all = locks();
    int step = progress.start("releaseLocks", afterLoss == null ? "revoking " + all.locks().size() + " leases"
        : "releasing the old leases after: " + afterLoss);
    try {
      via.releaseLocks(all);
      progress.finish(step, StepStatus.DONE, null);
      return true;
    } catch (RuntimeException e) {
      progress.finish(step, StepStatus.FAILED, Failures.message(e) + " (the leases expire within their TTL)");
      return false;
    }
  }

  private void forget() {
    locks = null;
    shardLocks = null;
    loss = null; // a loss of the locks given back is no reason to stop a later read-only step
    progress.locks(null);
  }

  private static boolean ended(Promise<Void> hold) {
    return hold == null || hold.isCompleted();
  }

  private void stopHolding() {
    stopping = true;
    if (holdScope != null) {
      holdScope.cancel();
      awaitEnd(holding);
      holdScope = null;
    }
    if (shardHoldScope != null) {
      shardHoldScope.cancel();
      awaitEnd(shardHolding);
      shardHoldScope = null;
    }
  }

  private static void awaitEnd(Promise<Void> hold) {
    try {
      hold.get();
    } catch (RuntimeException expected) {
      // holdLocks ends with a cancellation or a loss; either way renewal has stopped.
    }
  }
}
