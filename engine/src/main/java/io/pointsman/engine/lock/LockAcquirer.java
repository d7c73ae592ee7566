package io.pointsman.engine.lock;

import static io.pointsman.engine.etcd.EtcdClients.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdErrors;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Vitess etcd2topo lock algorithm (docs/locks.md §3), on the calling thread: grant a lease,
 * create {@code <dir>/locks/<leaseId>} with it, then wait in line until every key created before
 * ours is gone. The lease is renewed from the moment the key exists, so a long wait cannot expire
 * it; and on any failure after the grant the lease is revoked, so no orphan key blocks the line.
 */
final class LockAcquirer {
  private static final Logger log = LoggerFactory.getLogger(LockAcquirer.class);
  /** Revoking after a failure gets its own deadline: the acquisition's may be what ran out. */
  static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(5);
  /** Re-read the line now and then in case a watch event was lost (jetcd watch reconnect issues). */
  private static final Duration RECHECK_INTERVAL = Duration.ofSeconds(5);
  /** A pause after a broken watch, so an etcd that keeps failing watches is not hammered. */
  private static final Duration WATCH_RETRY_DELAY = Duration.ofMillis(200);

  private final Client etcd;
  private final LockProbe probe;
  private final ScheduledExecutorService scheduler;
  private final Executor events;
  private final EtcdLockService service;

  LockAcquirer(Client etcd, LockProbe probe, ScheduledExecutorService scheduler, Executor events,
      EtcdLockService service) {
    this.etcd = etcd;
    this.probe = probe;
    this.scheduler = scheduler;
    this.events = events;
    this.service = service;
  }

  HeldEtcdLock acquire(LockTarget target, LockOptions options) {
    Attempt attempt = new Attempt(target, options);
    if (target.mustExist()) {
      attempt.requireExists();
    }
    String value = LockContents.running(options.action(), options.holder(), Instant.now()).toJson();
    long grantSentAt = System.nanoTime();
    long leaseId = attempt.call(etcd.getLeaseClient().grant(options.ttl().getSeconds()), "granting a lease").getID();
    LockRenewer renewer = null;
    try {
      String key = target.locksPrefix() + leaseId;
      long revision = attempt.createKey(key, value, leaseId);
      renewer = new LockRenewer(probe, scheduler, target.resource(), leaseId, key, revision, options.ttl(),
          options.renewInterval(), grantSentAt);
      CompletableFuture<String> lostInLine = new CompletableFuture<>();
      renewer.start((reason, message) -> lostInLine.complete(reason + ": " + message));
      attempt.waitForEarlierHolders(revision, lostInLine);

      long acquiredNanos = System.nanoTime();
      LockToken token = new LockToken(key, target.resource(), leaseId, revision, options.ttl(), Instant.now(),
          options.maxHold());
      HeldEtcdLock held = new HeldEtcdLock(service, token, renewer, options.listener(), events);
      if (!renewer.handOver(held, acquiredNanos + options.maxHold().toNanos())) {
        throw PointsmanException.unavailable("the lease of the lock on " + target.resource()
            + " was lost as the lock was granted: " + lostInLine.getNow("stopped"), null);
      }
      log.info("Locked {} for {}: key {}, lease {}, create revision {}, TTL {}", target.resource(),
          options.action(), key, leaseId, revision, options.ttl());
      return held;
    } catch (RuntimeException | Error e) {
      if (renewer != null) {
        renewer.stop();
      }
      revokeAfterFailure(target, leaseId, e);
      throw e;
    }
  }

  private void revokeAfterFailure(LockTarget target, long leaseId, Throwable primary) {
    try {
      Futures.awaitUninterruptibly(etcd.getLeaseClient().revoke(leaseId),
          System.nanoTime() + CLEANUP_TIMEOUT.toNanos());
    } catch (ExecutionException e) {
      if (!Futures.isNotFound(e)) {
        primary.addSuppressed(revokeFailed(target, leaseId, Futures.unwrap(e)));
      }
    } catch (TimeoutException e) {
      primary.addSuppressed(revokeFailed(target, leaseId, e));
    }
  }

  private static PointsmanException revokeFailed(LockTarget target, long leaseId, Throwable cause) {
    log.warn("Could not revoke lease {} after failing to lock {}; its key expires with the lease: {}",
        leaseId, target.resource(), Futures.describe(cause));
    return PointsmanException.unavailable("could not revoke lease " + leaseId + " after failing to lock "
        + target.resource() + "; its key expires with the lease", cause);
  }

  /** One acquisition: its deadline and the calls made under it. */
  private final class Attempt {
    private final LockTarget target;
    private final LockOptions options;
    private final long deadline;

    Attempt(LockTarget target, LockOptions options) {
      this.target = target;
      this.options = options;
      this.deadline = System.nanoTime() + options.acquireTimeout().toNanos();
    }

    void requireExists() {
      GetResponse found = call(etcd.getKVClient().get(bytes(target.dir() + "/"),
          GetOption.builder().isPrefix(true).withCountOnly(true).build()), "checking that it exists");
      if (found.getCount() == 0) {
        throw PointsmanException.notFound(target.notFound());
      }
    }

    /** Creates the lock key attached to the lease; returns its create revision, our place in line. */
    long createKey(String key, String value, long leaseId) {
      // not auto-retried: after an unknown outcome a retry would find our own key and fail the
      // compare; failing the attempt instead is safe because the cleanup revoke removes the key
      TxnResponse created = call(etcd.getKVClient().txn()
          .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
          .Then(Op.put(bytes(key), bytes(value), PutOption.builder().withLeaseId(leaseId).build()))
          .commit(), "creating the lock key");
      if (!created.isSucceeded()) {
        throw PointsmanException.internal("lock key " + key + " already exists although lease " + leaseId
            + " was just granted", null);
      }
      return created.getHeader().getRevision();
    }

    /**
     * Waits until no key under {@code locks/} with a smaller revision is left: watch the newest
     * older one for deletion, then look again, since an even older one may still be there.
     */
    void waitForEarlierHolders(long revision, CompletableFuture<String> lostInLine) {
      GetOption newestOlder = GetOption.builder()
          .isPrefix(true)
          .withSortField(GetOption.SortTarget.MOD)
          .withSortOrder(GetOption.SortOrder.DESCEND)
          .withLimit(1)
          .withMaxModRevision(revision - 1)
          .build();
      String reported = null;
      while (true) {
        GetResponse line = call(etcd.getKVClient().get(bytes(target.locksPrefix()), newestOlder),
            "looking for earlier holders");
        if (line.getKvs().isEmpty()) {
          return;
        }
        KeyValue ahead = line.getKvs().get(0);
        String aheadKey = EtcdClients.string(ahead.getKey());
        log.debug("Lock on {} waits for {}", target.resource(), Shown.text(aheadKey, 300));
        if (!aheadKey.equals(reported)) {
          reported = aheadKey;
          reportWait(new LockWait(target.resource(), aheadKey, holderOf(ahead)));
        }
        waitForDeletion(ahead, line.getHeader().getRevision() + 1, lostInLine);
      }
    }

    private void reportWait(LockWait wait) {
      try {
        options.waitListener().onWait(wait);
      } catch (RuntimeException e) {
        // reporting is for the operator; the acquisition goes on whatever the listener does
        log.warn("Could not report that the lock on {} waits: {}", wait.resource(), e.toString());
      }
    }

    /** Returns when {@code ahead} was deleted, or when it is time to look at the line again. */
    private void waitForDeletion(KeyValue ahead, long fromRevision, CompletableFuture<String> lostInLine) {
      CompletableFuture<Void> gone = new CompletableFuture<>();
      // runs on a jetcd thread: only complete the future, never block or call etcd here
      Watch.Listener listener = Watch.listener(
          response -> {
            if (response.getEvents().stream().anyMatch(ev -> ev.getEventType() == WatchEvent.EventType.DELETE)) {
              gone.complete(null);
            }
          },
          gone::completeExceptionally,
          () -> gone.complete(null));
      // watching from the revision the key was seen at catches a delete that happens before the
      // watch is registered; require-leader makes a partitioned member fail instead of stay silent
      WatchOption from = WatchOption.builder().withRevision(fromRevision).withRequireLeader(true).build();
      Watch.Watcher watcher = etcd.getWatchClient().watch(ahead.getKey(), from, listener);
      try {
        long until = Math.min(deadline, System.nanoTime() + RECHECK_INTERVAL.toNanos());
        Futures.awaitUntil(CompletableFuture.anyOf(gone, lostInLine), until);
      } catch (TimeoutException e) {
        if (System.nanoTime() - deadline >= 0) {
          throw timedOut(ahead);
        }
      } catch (ExecutionException e) {
        log.debug("Watch on {} broke; looking at the line again: {}", EtcdClients.string(ahead.getKey()),
            Futures.describe(e));
        pause(WATCH_RETRY_DELAY);
      } catch (InterruptedException e) {
        throw interrupted("waiting for earlier holders", e);
      } finally {
        watcher.close();
      }
      if (lostInLine.isDone()) {
        throw PointsmanException.unavailable("the lease of the lock on " + target.resource()
            + " was lost while waiting in line: " + lostInLine.join(), null);
      }
    }

    <T> T call(CompletableFuture<T> future, String what) {
      try {
        return Futures.awaitUntil(future, deadline);
      } catch (InterruptedException e) {
        throw interrupted(what, e);
      } catch (TimeoutException e) {
        throw new PointsmanException(ErrorCode.LOCK_TIMEOUT, "could not lock " + target.resource() + " within "
            + options.acquireTimeout() + ": etcd did not answer in time while " + what, e);
      } catch (ExecutionException e) {
        // a refused certificate, password or permission is FAILED_PRECONDITION: retrying cannot fix it
        throw new PointsmanException(EtcdErrors.code(e, ErrorCode.UNAVAILABLE), what + " for the lock on "
            + target.resource() + " failed: " + Futures.describe(e), Futures.unwrap(e));
      }
    }

    private PointsmanException timedOut(KeyValue ahead) {
      String holder = holderOf(ahead);
      return new PointsmanException(ErrorCode.LOCK_TIMEOUT, "could not lock " + target.resource() + " within "
          + options.acquireTimeout() + ": still held by " + Shown.text(EtcdClients.string(ahead.getKey()), 300) + " ("
          + holder + ")");
    }

    /** The holder a lock key's value names; any tool's value is shown, never interpreted further. */
    private static String holderOf(KeyValue lockKey) {
      return LockContents.parse(EtcdClients.string(lockKey.getValue())).map(LockContents::describe)
          .orElse("a holder whose lock value is not Vitess's JSON");
    }

    private PointsmanException interrupted(String what, InterruptedException e) {
      Thread.currentThread().interrupt();
      return PointsmanException.unavailable("interrupted while " + what + " for the lock on " + target.resource(), e);
    }

    private void pause(Duration d) {
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(d.toNanos(), Math.max(0, deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        throw interrupted("waiting for earlier holders", e);
      }
    }
  }
}
