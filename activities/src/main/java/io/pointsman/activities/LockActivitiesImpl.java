package io.pointsman.activities;

import io.pointsman.api.activities.HoldingStarted;
import io.pointsman.api.activities.LockActivities;
import io.pointsman.api.activities.LockRequest;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.request.TimeLimits;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockHolder;
import io.pointsman.engine.lock.LockLoss;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.lock.LockWait;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.client.ActivityCompletionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock activities of docs/locks.md §9 over a {@link LockService}.
 *
 * <p><b>Hand-over from acquireLocks to holdLocks.</b> The locks are taken in {@code acquireLocks}
 * but renewed by {@code holdLocks}, which the workflow starts right after, maybe on another worker.
 * The acquiring worker keeps renewing each lock for half its TTL after acquisition, then detaches
 * (stops renewing without revoking); a {@code holdLocks} attaching in the same process takes over at
 * once. Detaching at once would leave {@code holdLocks} only about two thirds of a TTL to attach
 * (the last renewal may be a third of a TTL old); renewing until {@code holdLocks} attaches on another
 * worker cannot be known here, and renewing until max hold would keep the locks of a workflow that
 * died between the two activities for ten minutes. With the grace, {@code holdLocks} has at least
 * 7/6 of a TTL to attach (far above a workflow task round trip), and the locks of a vanished
 * workflow expire at most 3/2 of a TTL after acquisition.
 *
 * <p><b>Never revoking in holdLocks.</b> However {@code holdLocks} ends, it stops renewing in this
 * process and leaves the leases alone: the workflow revokes them with {@code releaseLocks}, and when
 * that runs in the same worker {@code holdLocks} sees it at once and completes; else it ends on its
 * cancellation; after a heartbeat timeout or a worker shutdown the next attempt, perhaps on
 * another worker, attaches to them; after a loss the workflow releases what is left and re-acquires.
 */
public final class LockActivitiesImpl implements LockActivities {
  private static final Logger log = LoggerFactory.getLogger(LockActivitiesImpl.class);
  /** The action {@code holdLocks} names in its attach options (attach keeps the lock's stored value). */
  private static final String HOLD_ACTION = "holdLocks";
  /** Used when holdLocks runs without a heartbeat timeout, which also delays cancellation (Temporal's default 30 s). */
  private static final Duration POLL_WITHOUT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MIN_POLL = Duration.ofMillis(100);
  private static final Duration MAX_POLL = Duration.ofSeconds(1);
  /**
   * How long tryAcquireLocks may take for all its locks: free locks take a few etcd round trips;
   * past this, another holder (or a slow etcd) is in the way, and the waiting acquireLocks takes over.
   * It runs inside a workflow task, which holds every query to the workflow meanwhile.
   */
  static final Duration TRY_ACQUIRE_TIMEOUT = Duration.ofMillis(250);
  /** A loss is recorded before its future completes on the lock service's event thread; wait that long at most. */
  private static final Duration LOSS_REPORT_WAIT = Duration.ofSeconds(1);

  private final LockService locks;
  private final Duration acquireTimeout;

  public LockActivitiesImpl(LockService locks) {
    this(locks, TimeLimits.DEFAULT_LOCK_ACQUIRE_TIMEOUT);
  }

  /**
   * @param acquireTimeout the deadline of one {@code acquireLocks} for all its locks together, so the
   *     activity stays within its start-to-close timeout however many locks it takes
   */
  public LockActivitiesImpl(LockService locks, Duration acquireTimeout) {
    this.locks = Objects.requireNonNull(locks, "locks");
    this.acquireTimeout = Objects.requireNonNull(acquireTimeout, "acquireTimeout");
  }

  @Override
  public LockSet acquireLocks(LockRequest request) {
    return ActivityFailures.translate(() -> {
      ActivityExecutionContext context = Activity.getExecutionContext();
      ActivityInfo info = context.getInfo();
      return acquire(request, new LockHolder(info.getNamespace(), info.getWorkflowId(), info.getRunId()),
          ServerClock.of(info), new LockWaitReporter(context), acquireTimeout);
    });
  }

  @Override
  public LockSet tryAcquireLocks(LockRequest request, long workflowTimeMillis) {
    // Held by another (LOCK_TIMEOUT) is what the try is for: the waiting acquireLocks takes over.
    return ActivityFailures.translateExpecting(ErrorCode.LOCK_TIMEOUT, () -> {
      ActivityInfo info = Activity.getExecutionContext().getInfo();
      // No wait reports: the waiting, and showing whom for, is the fallback acquireLocks's job.
      return acquire(request, new LockHolder(info.getNamespace(), info.getWorkflowId(), info.getRunId()),
          ServerClock.at(workflowTimeMillis), LockWait.Listener.NONE, TRY_ACQUIRE_TIMEOUT);
    });
  }

  @Override
  public void holdLocks(LockSet set) {
    ActivityFailures.translate(() -> hold(set, Activity.getExecutionContext()));
  }

  @Override
  public void releaseLocks(LockSet set) {
    ActivityFailures.translate(() -> release(set));
  }

  private LockSet acquire(LockRequest request, LockHolder holder, ServerClock clock, LockWait.Listener waits,
      Duration timeout) {
    validate(request);
    long deadline = System.nanoTime() + timeout.toNanos();
    List<HeldLock> taken = new ArrayList<>();
    List<LockToken> tokens = new ArrayList<>();
    try {
      if (request.namedLock() != null) {
        taken.add(locks.lockNamed(request.namedLock(),
            options(request, holder, waits, deadline, timeout, "named lock " + request.namedLock())));
        tokens.add(taken.get(0).token().withAcquiredAt(clock.now()));
      }
      for (String keyspace : request.keyspaces()) {
        taken.add(locks.lockKeyspace(keyspace,
            options(request, holder, waits, deadline, timeout, "keyspace " + keyspace)));
        tokens.add(taken.get(taken.size() - 1).token().withAcquiredAt(clock.now()));
      }
      for (String shard : request.shards()) {
        int slash = shard.indexOf('/');
        taken.add(locks.lockShard(shard.substring(0, slash), shard.substring(slash + 1),
            options(request, holder, waits, deadline, timeout, "shard " + shard)));
        tokens.add(taken.get(taken.size() - 1).token().withAcquiredAt(clock.now()));
      }
    } catch (RuntimeException | Error e) {
      for (int i = taken.size() - 1; i >= 0; i--) {
        try {
          taken.get(i).close();
        } catch (RuntimeException releaseFailure) {
          e.addSuppressed(releaseFailure);
        }
      }
      throw e;
    }
    for (HeldLock lock : taken) {
      lock.detachAfter(lock.token().ttl().dividedBy(2));
    }
    return new LockSet(tokens);
  }

  private static void validate(LockRequest request) {
    if (request == null) {
      throw PointsmanException.invalidArgument("lock request is missing");
    }
    boolean shardsOnly = request.namedLock() == null && request.keyspaces().isEmpty() && !request.shards().isEmpty();
    if (!shardsOnly && (request.namedLock() == null || request.namedLock().isBlank())) {
      // Only the shard locks of a write window may come without it: the action holds it already.
      throw PointsmanException.invalidArgument("lock request has no named lock");
    }
    for (String shard : request.shards()) {
      int slash = shard.indexOf('/');
      if (slash <= 0 || slash == shard.length() - 1) {
        throw PointsmanException.invalidArgument("lock request names shard '" + shard
            + "': expected <keyspace>/<shard>");
      }
    }
    if (request.ttl() == null || request.maxHold() == null) {
      throw PointsmanException.invalidArgument("lock request needs a ttl and a maxHold, got " + request);
    }
  }

  private LockOptions options(LockRequest request, LockHolder holder, LockWait.Listener waits, long deadline,
      Duration timeout, String what) {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new PointsmanException(ErrorCode.LOCK_TIMEOUT, "could not lock " + what + " within " + timeout
          + ": the locks taken before it used up the deadline");
    }
    return LockOptions.builder()
        .action(request.action())
        .ttl(request.ttl())
        .maxHold(request.maxHold())
        .acquireTimeout(Duration.ofNanos(left))
        .holder(holder)
        .waitListener(waits)
        .build();
  }

  private void hold(LockSet set, ActivityExecutionContext context) {
    if (set == null) {
      throw PointsmanException.invalidArgument("lock set is missing");
    }
    ActivityInfo info = context.getInfo();
    ServerClock clock = ServerClock.of(info);
    Duration poll = pollInterval(info.getHeartbeatTimeout());
    Beats beats = new Beats(context, info.getAttempt(), set.locks().size());
    List<Holding> held = new ArrayList<>();
    String ending = "failed";
    try {
      beats.beat(); // a cancellation that came before we started ends us before we renew anything
      // All at once: the workflow's steps under these locks wait for reportHolding. The heartbeats
      // stay before it: a first heartbeat sent after the report reached the SDK's test server while
      // the workflow task the report woke was running, and that server then scheduled one more,
      // empty, workflow task (seen in the bench's histories: four to six more events a switch).
      locks.attachAll(set.locks(), token -> LockOptions.builder().action(HOLD_ACTION).maxHold(token.maxHold()).build(),
          clock.now()).forEach(lock -> held.add(new Holding(lock)));
      beats.beat();
      log.info("Holding {} locks for workflow {} (attempt {}), heartbeating every {}", held.size(),
          info.getWorkflowId(), info.getAttempt(), poll);
      reportHolding(context, set);
      keepHolding(held, context, beats, poll);
      ending = "released by releaseLocks in this worker";
    } catch (ActivityCompletionException e) {
      ending = "ended by Temporal (" + e.getClass().getSimpleName() + "); the leases are left for releaseLocks"
          + " or the next attempt";
      throw e;
    } catch (RuntimeException e) {
      ending = "failed: " + e.getMessage() + "; the leases are left for releaseLocks or the next attempt";
      throw e;
    } finally {
      for (Holding h : held) {
        h.lock.detach();
      }
      log.info("Stopped holding the locks of workflow {} (attempt {}): {}", info.getWorkflowId(), info.getAttempt(),
          ending);
    }
  }

  /**
   * Tells the workflow that renewal runs ({@link HoldingStarted}). Its workflow waits for this
   * before local steps under the locks, but only for a while: a signal that cannot be sent (the
   * workflow has closed, the server is away) is logged and changes nothing here.
   */
  private static void reportHolding(ActivityExecutionContext context, LockSet set) {
    ActivityInfo info = context.getInfo();
    try {
      context.getWorkflowClient().newUntypedWorkflowStub(info.getWorkflowId(), Optional.of(info.getRunId()),
          Optional.empty()).signal(HoldingStarted.SIGNAL, set.fencingToken());
    } catch (RuntimeException e) {
      log.info("holdLocks of workflow {} could not report that it holds the locks: {}", info.getWorkflowId(),
          e.toString());
    }
  }

  /**
   * Heartbeats while every lock is held; returns once releaseLocks released one in this worker;
   * throws the first loss, or the cancellation (or other end of the attempt) that a heartbeat reports. Waits on the loss futures and the cancellation token, so
   * either ends it at once; nothing here runs on, or blocks, an etcd client thread.
   */
  private static void keepHolding(List<Holding> held, ActivityExecutionContext context, Beats beats, Duration poll) {
    CompletableFuture<Void> cancelled = context.getCancellationToken().getCancellationFuture();
    try {
      List<CompletableFuture<?>> wakeUps = new ArrayList<>();
      wakeUps.add(cancelled);
      held.forEach(h -> wakeUps.add(h.loss));
      held.forEach(h -> wakeUps.add(h.released));
      CompletableFuture<Object> wake = CompletableFuture.anyOf(wakeUps.toArray(CompletableFuture[]::new));
      while (true) {
        if (held.stream().anyMatch(h -> h.released.isDone())) {
          // releaseLocks ran in this worker: the workflow gave the locks back, holding is over
          return;
        }
        throwIfLost(held);
        beats.allHeld();
        beats.beat();
        try {
          wake.get(poll.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
          // time for the next heartbeat, or a cancellation (failing the future) to rethrow below
        }
        if (cancelled.isDone()) {
          context.getCancellationToken().throwIfCancellationRequested();
        }
      }
    } catch (InterruptedException e) {
      // the worker is shutting down (shutdownNow): a heartbeat tells, and the retry re-attaches
      try {
        beats.beat();
      } finally {
        Thread.currentThread().interrupt();
      }
      throw PointsmanException.unavailable("holding the locks was interrupted; a retry re-attaches to them", e);
    } finally {
      cancelled.cancel(false); // unregisters it from the cancellation token
    }
  }

  private static void throwIfLost(List<Holding> held) throws InterruptedException {
    for (Holding h : held) {
      if (h.loss.isDone() || !h.lock.isHeld()) {
        LockLoss loss = lossOf(h);
        if (loss != null) {
          throw failureFor(loss);
        }
        h.lock.checkHeld(); // stopped in this process without a loss (released, taken over): says which
      }
    }
  }

  private static LockLoss lossOf(Holding h) throws InterruptedException {
    try {
      return h.loss.get(LOSS_REPORT_WAIT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    }
  }

  private static PointsmanException failureFor(LockLoss loss) {
    if (loss.reason() == LockLoss.Reason.SERVICE_CLOSED) {
      // this worker is shutting down, the lock itself may be fine: a retry elsewhere re-attaches
      return PointsmanException.unavailable("stopped holding the lock on " + loss.token().resource()
          + " because this worker's lock service closed; a retry re-attaches: " + loss.message(), null);
    }
    return loss.toException();
  }

  /**
   * A third of the heartbeat timeout, so heartbeats keep up even when one is late, and at most a
   * second, so a cancellation (which comes with a heartbeat's answer) ends it soon after a release
   * on another worker; the SDK throttles what it sends anyway.
   */
  private static Duration pollInterval(Duration heartbeatTimeout) {
    if (heartbeatTimeout == null || heartbeatTimeout.isZero()) {
      log.warn("holdLocks runs without a heartbeat timeout: a crashed worker is noticed only at the "
          + "start-to-close timeout, and a cancellation only about every 30 s");
      return POLL_WITHOUT_HEARTBEAT_TIMEOUT;
    }
    Duration third = heartbeatTimeout.dividedBy(3);
    if (third.compareTo(MAX_POLL) > 0) {
      return MAX_POLL;
    }
    return third.compareTo(MIN_POLL) < 0 ? MIN_POLL : third;
  }

  private void release(LockSet set) {
    if (set == null) {
      throw PointsmanException.invalidArgument("lock set is missing");
    }
    // All revokes at once: each is an etcd round trip, and nothing waits on their order (a waiter
    // for one of them queues behind the others it needs anyway). Every lease is tried even when
    // one fails, which expires within its TTL; the first failure is thrown, the others suppressed.
    FanOut.forEach(set.locks(), locks::release);
  }

  /** One attached lock and its loss, observed from the start. */
  private static final class Holding {
    final HeldLock lock;
    final CompletableFuture<LockLoss> loss;
    final CompletableFuture<Void> released;

    Holding(HeldLock lock) {
      this.lock = lock;
      this.loss = lock.lossFuture();
      this.released = lock.releasedFuture();
    }
  }

  /** The heartbeats of one holdLocks attempt and their details. */
  private static final class Beats {
    private final ActivityExecutionContext context;
    private final int attempt;
    private final int locks;
    private long count;
    private Instant allHeldAt;

    Beats(ActivityExecutionContext context, int attempt, int locks) {
      this.context = context;
      this.attempt = attempt;
      this.locks = locks;
    }

    void allHeld() {
      allHeldAt = Instant.now();
    }

    /** Throws what Temporal says about this attempt: cancelled, timed out, worker shutting down. */
    void beat() {
      count++;
      context.heartbeat(new LockHoldProgress(attempt, locks, count, allHeldAt));
    }
  }
}
