package io.pointsman.engine.lock;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lock's lease alive on the lock service's own scheduler, so nothing the acquiring caller
 * does (returning, being cancelled or interrupted) stops it; this is the Vitess bug pointsman
 * exists to fix. Every renewal is a KeepAliveOnce plus a read of the key, not jetcd's keep-alive
 * stream, whose completion is final and whose errors are silent retries.
 *
 * <p>The local deadline is the send time of the last successful renewal plus the TTL: etcd
 * received that renewal later than we sent it, so its lease outlives our deadline and the holder
 * never believes in a lock etcd already expired. A definite "gone" answer, an overdue deadline, or
 * the max hold ends renewal and is reported once to the {@link Sink}.
 */
final class LockRenewer {
  private static final Logger log = LoggerFactory.getLogger(LockRenewer.class);
  /** How soon a failed renewal is tried again; at most half the renew interval, to fit a few retries in a TTL. */
  private static final Duration RETRY_DELAY = Duration.ofMillis(500);
  /** A renewal that takes longer is given up and retried: the TTL, not one slow call, is the budget. */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  /** Where a loss goes: the acquirer while it waits in line, then the held lock. */
  interface Sink {
    void onLoss(LockLoss.Reason reason, String message);
  }

  private final LockProbe probe;
  private final ScheduledExecutorService scheduler;
  private final String resource;
  private final long leaseId;
  private final String key;
  private final long createRevision;
  private final Duration ttl;
  private final Duration renewInterval;

  // guarded by this
  private Sink sink;
  private long renewedUntilNanos;
  private long maxHoldUntilNanos;
  private boolean maxHoldSet;
  private boolean finished;
  private ScheduledFuture<?> next;
  private int failuresInARow;

  /**
   * @param leaseSentAtNanos when the grant (or last renewal) of the lease was sent
   */
  LockRenewer(LockProbe probe, ScheduledExecutorService scheduler, String resource, long leaseId, String key,
      long createRevision, Duration ttl, Duration renewInterval, long leaseSentAtNanos) {
    this.probe = probe;
    this.scheduler = scheduler;
    this.resource = resource;
    this.leaseId = leaseId;
    this.key = key;
    this.createRevision = createRevision;
    this.ttl = ttl;
    this.renewInterval = renewInterval;
    this.renewedUntilNanos = leaseSentAtNanos + ttl.toNanos();
  }

  /** Starts renewing; losses go to {@code sink} until {@link #handOver}. */
  synchronized void start(Sink sink) {
    this.sink = sink;
    schedule(renewInterval);
  }

  /**
   * Makes {@code sink} the receiver of losses from now on and starts counting the max hold.
   *
   * @return false when the lock was already lost or stopped, so there is nothing to hand over
   */
  synchronized boolean handOver(Sink sink, long maxHoldUntilNanos) {
    if (finished) {
      return false;
    }
    this.sink = sink;
    this.maxHoldUntilNanos = maxHoldUntilNanos;
    this.maxHoldSet = true;
    long untilMaxHold = Math.max(0, maxHoldUntilNanos - System.nanoTime());
    if (next == null || next.getDelay(TimeUnit.NANOSECONDS) > untilMaxHold) {
      reschedule(Duration.ofNanos(untilMaxHold));
    }
    return true;
  }

  /** Stops renewing without reporting anything: the lock is being released. */
  synchronized void stop() {
    finished = true;
    cancelNext();
  }

  /**
   * Whether the lock is within its local deadline and max hold; if not, reports the loss (once)
   * rather than waiting for the next tick, so a caller never sees a lock past its deadline as held.
   */
  boolean withinDeadlines() {
    return !expired(System.nanoTime());
  }

  /** Records a successful renewal made outside the renewer, e.g. by a server-side check. */
  synchronized void renewed(long sentAtNanos, long ttlSeconds) {
    // etcd may keep a lease longer than asked (a minimum TTL), never shorter; our TTL is the safe one
    long until = sentAtNanos + Math.min(ttl.toNanos(), Duration.ofSeconds(ttlSeconds).toNanos());
    if (until - renewedUntilNanos > 0) {
      renewedUntilNanos = until;
    }
  }

  /** Reports a loss found by someone else (a server-side check); ends renewal. */
  void lose(LockLoss.Reason reason, String message) {
    Sink target;
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
      cancelNext();
      target = sink;
    }
    target.onLoss(reason, message);
  }

  private void tick() {
    try {
      long sentAt = System.nanoTime();
      if (expired(sentAt)) {
        return;
      }
      Duration timeout;
      synchronized (this) {
        long bound = Math.min(Math.min(renewInterval.toNanos(), CALL_TIMEOUT.toNanos()), renewedUntilNanos - sentAt);
        timeout = Duration.ofNanos(Math.max(1, bound));
      }
      probe.probe(leaseId, key, createRevision, timeout)
          .whenCompleteAsync((result, error) -> afterProbe(sentAt, result, error), scheduler);
    } catch (RejectedExecutionException e) {
      log.debug("Lock service is closing; renewal of {} ends", resource);
    } catch (RuntimeException e) {
      log.error("Renewal of lock on {} failed unexpectedly; trying again", resource, e);
      retryLater();
    }
  }

  private void afterProbe(long sentAt, LockProbe.Result result, Throwable error) {
    if (error != null) {
      int failures;
      synchronized (this) {
        failures = ++failuresInARow;
      }
      if (failures == 1) {
        log.warn("Renewal of lock on {} (lease {}) failed, retrying until its TTL runs out: {}",
            resource, leaseId, Futures.describe(error));
      } else {
        log.debug("Renewal of lock on {} (lease {}) failed again ({} in a row): {}",
            resource, leaseId, failures, Futures.describe(error));
      }
      if (!expired(System.nanoTime())) {
        retryLater();
      }
      return;
    }
    if (!result.held()) {
      lose(result.lossReason(), result.message());
      return;
    }
    int failures;
    synchronized (this) {
      renewed(sentAt, result.ttlSeconds());
      failures = failuresInARow;
      failuresInARow = 0;
    }
    if (failures > 0) {
      log.info("Renewal of lock on {} (lease {}) works again after {} failures", resource, leaseId, failures);
    }
    long now = System.nanoTime();
    if (!expired(now)) {
      synchronized (this) {
        reschedule(Duration.ofNanos(nextTickDelay(sentAt, now)));
      }
    }
  }

  /** Checks the max hold and the local deadline, reporting the first one passed. */
  private boolean expired(long now) {
    LockLoss.Reason reason;
    String message;
    synchronized (this) {
      if (finished) {
        return true;
      }
      if (maxHoldSet && now - maxHoldUntilNanos >= 0) {
        reason = LockLoss.Reason.MAX_HOLD_REACHED;
        message = "held for its max hold; renewal stopped on purpose and lease " + leaseId
            + " expires within " + ttl;
      } else if (now - renewedUntilNanos >= 0) {
        reason = LockLoss.Reason.RENEWAL_FAILED;
        message = "no renewal of lease " + leaseId + " succeeded for a whole TTL (" + ttl
            + "); etcd may have expired it";
      } else {
        return false;
      }
    }
    lose(reason, message);
    return true;
  }

  /** Until the next regular renewal, or until the max hold runs out if that comes first. */
  private long nextTickDelay(long lastSentAt, long now) {
    long delay = lastSentAt + renewInterval.toNanos() - now;
    if (maxHoldSet) {
      delay = Math.min(delay, maxHoldUntilNanos - now);
    }
    return Math.max(0, delay);
  }

  private void retryLater() {
    synchronized (this) {
      long delay = Math.min(RETRY_DELAY.toNanos(), renewInterval.toNanos() / 2);
      if (maxHoldSet) {
        delay = Math.min(delay, Math.max(0, maxHoldUntilNanos - System.nanoTime()));
      }
      reschedule(Duration.ofNanos(delay));
    }
  }

  // must hold this
  private void reschedule(Duration delay) {
    cancelNext();
    schedule(delay);
  }

  // must hold this
  private void schedule(Duration delay) {
    if (finished) {
      return;
    }
    try {
      next = scheduler.schedule(this::tick, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("Lock service is closing; renewal of {} ends", resource);
    }
  }

  // must hold this
  private void cancelNext() {
    if (next != null) {
      next.cancel(false);
      next = null;
    }
  }
}
