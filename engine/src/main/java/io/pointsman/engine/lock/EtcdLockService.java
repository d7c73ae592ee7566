package io.pointsman.engine.lock;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LockService} on etcd, compatible with Vitess's etcd2topo locks. It owns the threads that
 * renew its locks and tell holders about losses, so renewal outlives whatever call acquired a lock;
 * {@link #close()} stops them. The etcd client stays the caller's.
 */
public final class EtcdLockService implements LockService, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdLockService.class);
  /** Bounds release, check and attach: short, since a lock's TTL is the budget for noticing trouble. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  private final Client etcd;
  private final TopoPaths paths;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService events;
  private final LockProbe probe;
  private final LockAcquirer acquirer;
  private final Set<HeldEtcdLock> held = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public EtcdLockService(Client etcd, TopoPaths paths) {
    this.etcd = Objects.requireNonNull(etcd, "etcd");
    this.paths = Objects.requireNonNull(paths, "paths");
    // two threads: renewals never block them (all etcd calls are asynchronous), the second is slack
    this.scheduler = new ScheduledThreadPoolExecutor(2, daemonThreads("pointsman-lock-renewer"));
    this.scheduler.setRemoveOnCancelPolicy(true);
    // separate from the scheduler so a slow listener cannot delay anybody's renewal
    this.events = Executors.newCachedThreadPool(daemonThreads("pointsman-lock-events"));
    this.probe = new LockProbe(etcd, scheduler);
    this.acquirer = new LockAcquirer(etcd, probe, scheduler, events, this);
  }

  @Override
  public HeldLock lockKeyspace(String keyspace, LockOptions options) {
    return lock(LockTarget.keyspace(paths, keyspace), options);
  }

  @Override
  public HeldLock lockShard(String keyspace, String shard, LockOptions options) {
    return lock(LockTarget.shard(paths, keyspace, shard), options);
  }

  @Override
  public HeldLock lockNamed(String name, LockOptions options) {
    return lock(LockTarget.named(paths, name), options);
  }

  @Override
  public HeldLock attach(LockToken token, LockOptions options, Instant now) {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(options, "options");
    return attachAll(List.of(token), t -> options, now).get(0);
  }

  /**
   * Asks etcd about every lock at once (a keep-alive of each lease and a read of each key), and
   * takes over only when every answer says held: a lost one fails the call before any earlier
   * handle of this process stops renewing.
   */
  @Override
  public List<HeldLock> attachAll(List<LockToken> tokens, Function<LockToken, LockOptions> options, Instant now) {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(now, "now");
    requireOpen();
    // Every refusal that needs no etcd comes before the first question.
    List<Attaching> attaching = new ArrayList<>();
    for (LockToken token : tokens) {
      attaching.add(Attaching.of(Objects.requireNonNull(token, "token"),
          Objects.requireNonNull(options.apply(token), "options"), now));
    }
    long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
    for (Attaching a : attaching) {
      a.ask(probe);
    }
    for (Attaching a : attaching) {
      LockProbe.Result result = await(a.answer, a.token, "attach to", deadline);
      if (!result.held()) {
        throw new LockLoss(a.token, result.lossReason(), result.message()).toException();
      }
    }
    List<HeldLock> attached = new ArrayList<>();
    for (Attaching a : attaching) {
      attached.add(takeOver(a));
    }
    return List.copyOf(attached);
  }

  /** One lock being attached: what it may still be held for, and etcd's answer. */
  private static final class Attaching {
    final LockToken token;
    final Duration renewInterval;
    final Duration holdLeft;
    final LockOptions options;
    long sentAt;
    CompletableFuture<LockProbe.Result> answer;

    private Attaching(LockToken token, LockOptions options, Duration renewInterval, Duration holdLeft) {
      this.token = token;
      this.options = options;
      this.renewInterval = renewInterval;
      this.holdLeft = holdLeft;
    }

    static Attaching of(LockToken token, LockOptions options, Instant now) {
      Duration renewInterval = options.renewIntervalFor(token.ttl());
      // A clock behind the one that stamped the token must not grant more than the whole max hold.
      Duration heldSoFar = Duration.between(token.acquiredAt(), now);
      Duration holdLeft = heldSoFar.isNegative() ? options.maxHold() : options.maxHold().minus(heldSoFar);
      if (holdLeft.isNegative() || holdLeft.isZero()) {
        throw new LockLostException(token.key(), "lock on " + token.resource() + " was acquired at "
            + token.acquiredAt() + ", longer ago than its max hold " + options.maxHold());
      }
      return new Attaching(token, options, renewInterval, holdLeft);
    }

    void ask(LockProbe probe) {
      sentAt = System.nanoTime();
      answer = probe.probe(token.leaseId(), token.key(), token.createRevision(), CALL_TIMEOUT, true);
    }
  }

  private HeldLock takeOver(Attaching a) {
    LockToken token = a.token;
    // one renewer per lease in this process: e.g. the handle left by the acquiring activity, or by
    // an earlier attempt of a retried holding activity, hands the lease to the new one
    for (HeldEtcdLock earlier : held) {
      if (earlier.leaseId() == token.leaseId()) {
        held.remove(earlier);
        earlier.stopBecauseTakenOver();
      }
    }
    LockRenewer renewer = new LockRenewer(probe, scheduler, token.resource(), token.leaseId(), token.key(),
        token.createRevision(), token.ttl(), a.renewInterval, a.sentAt);
    HeldEtcdLock lock = new HeldEtcdLock(this, token, renewer, a.options.listener(), events);
    renewer.start(lock);
    renewer.handOver(lock, System.nanoTime() + a.holdLeft.toNanos());
    register(lock);
    log.info("Attached to the lock on {}: key {}, lease {}, create revision {}", token.resource(), token.key(),
        token.leaseId(), token.createRevision());
    return lock;
  }

  @Override
  public LockStatus check(LockToken token) {
    Objects.requireNonNull(token, "token");
    LockProbe.Result result = askEtcd(token, "check", false);
    return result.held()
        ? LockStatus.stillHeld(result.message())
        : LockStatus.lost(result.lossReason(), result.message());
  }

  @Override
  public List<LockStatus> checkAll(List<LockToken> tokens) {
    return ask(tokens).statuses();
  }

  @Override
  public LockCheck ask(List<LockToken> tokens) {
    List<LockToken> asked = List.copyOf(tokens);
    long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
    List<CompletableFuture<LockProbe.Result>> answers = asked.stream()
        .map(t -> probe.probe(t.leaseId(), t.key(), t.createRevision(), CALL_TIMEOUT, false)).toList();
    return () -> {
      List<LockStatus> out = new ArrayList<>();
      for (int i = 0; i < asked.size(); i++) {
        LockProbe.Result result = await(answers.get(i), asked.get(i), "check", deadline);
        out.add(result.held() ? LockStatus.stillHeld(result.message())
            : LockStatus.lost(result.lossReason(), result.message()));
      }
      return out;
    };
  }

  @Override
  public void release(LockToken token) {
    Objects.requireNonNull(token, "token");
    // stop renewing first, so the revoke is not mistaken for a loss by our own renewer
    for (HeldEtcdLock lock : held) {
      if (lock.leaseId() == token.leaseId()) {
        lock.stopForRelease();
        held.remove(lock);
      }
    }
    try {
      Futures.awaitUninterruptibly(etcd.getLeaseClient().revoke(token.leaseId()),
          System.nanoTime() + CALL_TIMEOUT.toNanos());
      log.info("Released the lock on {} (lease {})", token.resource(), token.leaseId());
    } catch (ExecutionException e) {
      if (Futures.isNotFound(e)) {
        log.debug("Lock on {} was already gone at release (lease {})", token.resource(), token.leaseId());
        return;
      }
      throw PointsmanException.unavailable("could not release the lock on " + token.resource() + " (lease "
          + token.leaseId() + "); it expires within " + token.ttl() + ": " + Futures.describe(e), Futures.unwrap(e));
    } catch (TimeoutException e) {
      throw PointsmanException.unavailable("could not release the lock on " + token.resource() + " (lease "
          + token.leaseId() + ") within " + CALL_TIMEOUT + "; it expires within " + token.ttl(), e);
    }
  }

  /**
   * Stops renewing every lock held through this service and reports each as lost with
   * {@link LockLoss.Reason#SERVICE_CLOSED} (their leases expire within a TTL; they are not revoked,
   * so another worker may still attach to them), then
   * stops the service's threads. The etcd client is not closed.
   */
  @Override
  public void close() {
    closed = true;
    for (HeldEtcdLock lock : held) {
      held.remove(lock);
      lock.stopBecauseServiceClosed();
    }
    scheduler.shutdownNow();
    events.shutdown();
    try {
      if (!events.awaitTermination(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("Lock loss listeners did not finish within {}", CALL_TIMEOUT);
        events.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      events.shutdownNow();
    }
  }

  /** Asks etcd on behalf of a held lock and counts a successful answer as a renewal. */
  LockStatus checkAndRenew(LockToken token, LockRenewer renewer) {
    long sentAt = System.nanoTime();
    LockProbe.Result result = askEtcd(token, "check", true);
    if (!result.held()) {
      return LockStatus.lost(result.lossReason(), result.message());
    }
    renewer.renewed(sentAt, result.ttlSeconds());
    return LockStatus.stillHeld(result.message());
  }

  /** Detaches the lock after {@code grace} on the renewal scheduler (detaching never blocks). */
  void detachLater(HeldEtcdLock lock, Duration grace) {
    try {
      scheduler.schedule(lock::detach, grace.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // the service is closed: close() already stopped every lock it renewed
      lock.detach();
    }
  }

  /** A lost or detached lock needs no release by the service any more; its holder may still close it. */
  void forget(HeldEtcdLock lock) {
    held.remove(lock);
  }

  private HeldLock lock(LockTarget target, LockOptions options) {
    Objects.requireNonNull(options, "options");
    requireOpen();
    HeldEtcdLock lock = acquirer.acquire(target, options);
    register(lock);
    return lock;
  }

  private void register(HeldEtcdLock lock) {
    held.add(lock);
    if (closed) {
      // close() ran while this lock was being taken and did not see it: nothing will renew it
      held.remove(lock);
      lock.stopBecauseServiceClosed();
    }
  }

  /** A lock taken after close would never be renewed, so refuse it instead. */
  private void requireOpen() {
    if (closed) {
      throw PointsmanException.failedPrecondition("the lock service is closed");
    }
  }

  private LockProbe.Result askEtcd(LockToken token, String what, boolean renew) {
    return await(probe.probe(token.leaseId(), token.key(), token.createRevision(), CALL_TIMEOUT, renew), token, what,
        System.nanoTime() + CALL_TIMEOUT.toNanos());
  }

  private static LockProbe.Result await(CompletableFuture<LockProbe.Result> answer, LockToken token, String what,
      long deadline) {
    try {
      return Futures.awaitUntil(answer, deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while trying to " + what + " the lock on "
          + token.resource(), e);
    } catch (ExecutionException | TimeoutException e) {
      throw PointsmanException.unavailable("could not " + what + " the lock on " + token.resource()
          + ": etcd did not answer: " + Futures.describe(e), Futures.unwrap(e));
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
