package io.pointsman.engine.lock;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.pointsman.engine.etcd.EtcdClients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks etcd whether a lock is held: a KeepAliveOnce on its lease (which renews it, as Vitess's
 * {@code Check} does) and a read of its key. Asynchronous so the renewer never parks a thread on a
 * slow etcd; every continuation runs on our executor, never on a jetcd event-loop thread.
 */
final class LockProbe {
  /**
   * etcd's answer.
   *
   * @param lossReason null when held
   * @param message details for an operator
   * @param ttlSeconds the lease TTL etcd renewed to, when held
   */
  record Result(LockLoss.Reason lossReason, String message, long ttlSeconds) {
    boolean held() {
      return lossReason == null;
    }

    static Result lost(LockLoss.Reason reason, String message) {
      return new Result(reason, message, 0);
    }
  }

  private final Client etcd;
  private final Executor executor;

  LockProbe(Client etcd, Executor executor) {
    this.etcd = etcd;
    this.executor = executor;
  }

  /**
   * Completes with a definite answer, or fails when etcd could not give one within {@code timeout}
   * (unreachable, slow, or any error other than "lease not found").
   */
  CompletableFuture<Result> probe(long leaseId, String key, long createRevision, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    return etcd.getLeaseClient().keepAliveOnce(leaseId)
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .handleAsync((renewed, error) -> afterKeepAlive(renewed, error, leaseId, key, createRevision, deadline),
            executor)
        .thenCompose(next -> next);
  }

  private CompletableFuture<Result> afterKeepAlive(LeaseKeepAliveResponse renewed, Throwable error, long leaseId,
      String key, long createRevision, long deadline) {
    if (error != null) {
      if (Futures.isNotFound(error)) {
        return CompletableFuture.completedFuture(
            Result.lost(LockLoss.Reason.LEASE_GONE, "lease " + leaseId + " no longer exists (expired or revoked)"));
      }
      return CompletableFuture.failedFuture(Futures.unwrap(error));
    }
    if (renewed.getTTL() <= 0) {
      return CompletableFuture.completedFuture(
          Result.lost(LockLoss.Reason.LEASE_GONE, "lease " + leaseId + " has expired (TTL " + renewed.getTTL() + ")"));
    }
    long remaining = deadline - System.nanoTime();
    if (remaining <= 0) {
      return CompletableFuture.failedFuture(new TimeoutException("no time left to read lock key " + key));
    }
    return etcd.getKVClient().get(EtcdClients.bytes(key))
        .orTimeout(remaining, TimeUnit.NANOSECONDS)
        .thenApplyAsync(read -> judgeKey(read, leaseId, key, createRevision, renewed.getTTL()), executor);
  }

  private static Result judgeKey(GetResponse read, long leaseId, String key, long createRevision, long ttl) {
    if (read.getKvs().isEmpty()) {
      return Result.lost(LockLoss.Reason.KEY_GONE, "lock key " + key + " no longer exists");
    }
    KeyValue kv = read.getKvs().get(0);
    if (kv.getCreateRevision() != createRevision || kv.getLease() != leaseId) {
      return Result.lost(LockLoss.Reason.KEY_GONE, "lock key " + key + " was re-created (create revision "
          + kv.getCreateRevision() + ", lease " + kv.getLease() + "; ours " + createRevision + ", lease "
          + leaseId + ")");
    }
    return new Result(null, "lease " + leaseId + " alive, key " + key + " at create revision " + createRevision, ttl);
  }
}
