package io.pointsman.workflows;

import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.activities.LockActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.lock.LockSet;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls the lock activities the way {@link LockKeeper} does (the same {@link StepOptions}, holdLocks
 * in a detached scope, cancelled and waited for before releaseLocks), and reports how holdLocks
 * ended, so tests of the activity implementations see exactly what a real workflow sees.
 */
@WorkflowInterface
public interface LockActivitiesTestWorkflow {

  enum Mode {
    /** acquire, hold until {@link #finish()} or until holdLocks ends, release */
    HOLD,
    /** acquire and return: nobody holds or releases the locks, as when a workflow dies in between */
    ACQUIRE_ONLY,
    /**
     * tryAcquireLocks as a local activity (as LockKeeper tries first) and return: the locks, or
     * holdEnd {@code not taken} with the failure's type and message; nobody holds or releases them
     */
    TRY_ONLY,
    /**
     * TRY_ONLY with the workflow's time an hour behind this worker's wall clock: as when the worker's
     * clock runs an hour ahead of the Temporal server's
     */
    TRY_ONLY_SERVER_AN_HOUR_BEHIND
  }

  /**
   * @param locks what acquireLocks returned
   * @param holdEnd {@code cancelled}, {@code failed}, {@code completed} or {@code not held}
   * @param holdFailureType the ApplicationFailure type inside the ActivityFailure when it failed
   * @param holdFailureMessage its message
   */
  record Outcome(LockSet locks, String holdEnd, String holdFailureType, String holdFailureMessage) {}

  @WorkflowMethod
  Outcome run(LockRequest request, Mode mode);

  /** Cancels holdLocks and releases the locks. */
  @SignalMethod
  void finish();

  /** The locks once acquired; null before. */
  @QueryMethod
  LockSet locks();

  /** The fencing tokens holdLocks reported it renews ({@link HoldingStarted}), in order. */
  @QueryMethod
  List<Long> holdingReported();

  final class Impl implements LockActivitiesTestWorkflow {
    private final LockActivities acquirer = Workflow.newActivityStub(LockActivities.class, StepOptions.acquire());
    private final LockActivities releaser = Workflow.newActivityStub(LockActivities.class, StepOptions.release());
    private LockSet locks;
    private boolean finishing;
    private final List<Long> reported = new ArrayList<>();

    public Impl() {
      Workflow.registerListener((HoldingStarted) reported::add);
    }

    @Override
    public List<Long> holdingReported() {
      return List.copyOf(reported);
    }

    @Override
    public Outcome run(LockRequest request, Mode mode) {
      LockActivities holder =
          Workflow.newActivityStub(LockActivities.class, StepOptions.hold(request.ttl(), request.maxHold()));
      if (mode == Mode.TRY_ONLY || mode == Mode.TRY_ONLY_SERVER_AN_HOUR_BEHIND) {
        LockActivities tryer = Workflow.newLocalActivityStub(LockActivities.class, StepOptions.localTryAcquire());
        long behind = mode == Mode.TRY_ONLY ? 0 : java.time.Duration.ofHours(1).toMillis();
        try {
          locks = tryer.tryAcquireLocks(request, Workflow.currentTimeMillis() - behind);
          return new Outcome(locks, "not held", null, null);
        } catch (ActivityFailure f) {
          return new Outcome(null, "not taken", Failures.applicationType(f), Failures.message(f));
        }
      }
      locks = acquirer.acquireLocks(request);
      if (mode == Mode.ACQUIRE_ONLY) {
        return new Outcome(locks, "not held", null, null);
      }
      LockSet held = locks;
      @SuppressWarnings("unchecked")
      Promise<Void>[] holding = new Promise[1];
      CancellationScope scope =
          Workflow.newDetachedCancellationScope(() -> holding[0] = Async.procedure(holder::holdLocks, held));
      scope.run();
      Workflow.await(() -> finishing || holding[0].isCompleted());
      if (!holding[0].isCompleted()) {
        scope.cancel();
      }
      Outcome outcome;
      try {
        holding[0].get();
        outcome = new Outcome(locks, "completed", null, null);
      } catch (ActivityFailure f) {
        outcome = Failures.isCancellation(f)
            ? new Outcome(locks, "cancelled", null, null)
            : new Outcome(locks, "failed", Failures.applicationType(f), Failures.message(f));
      }
      releaser.releaseLocks(locks);
      return outcome;
    }

    @Override
    public void finish() {
      finishing = true;
    }

    @Override
    public LockSet locks() {
      return locks;
    }
  }
}
