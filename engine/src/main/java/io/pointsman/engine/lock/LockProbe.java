package io.pointsman.engine.lock;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.pointsman.engine.etcd.EtcdClients;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Asks etcd whether a lock is held: a KeepAliveOnce on its lease when the holder renews, or a
 * TimeToLive that only asks (a check must not keep a lock past its max hold, nor alive for a holder
 * that stopped renewing; Vitess's {@code Check} renews), and a read of its key. Asynchronous so the renewer never parks a thread on a
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
    return probe(leaseId, key, createRevision, timeout, true);
  }

  /**
   * @param renew whether to renew the lease (the holder's renewal, an attach) or only ask about it
   *     (a check)
   */
  CompletableFuture<Result> probe(long leaseId, String key, long createRevision, Duration timeout, boolean renew) {
    // The lease and the key are asked at once: one round trip, not two (every step under the locks
    // checks them, and the window's steps run one after another). Each answer is about the moment it
    // was given, and a lock is held only when both say so, as when they were asked in turn.
    CompletableFuture<Answer<Long>> lease = (renew
        ? etcd.getLeaseClient().keepAliveOnce(leaseId).thenApply(r -> r.getTTL())
        // TimeToLive answers -1 for a lease that expired or was revoked.
        : etcd.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT).thenApply(r -> r.getTTL()))
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .handle(Answer::new);
    CompletableFuture<Answer<GetResponse>> read = etcd.getKVClient().get(EtcdClients.bytes(key))
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .handle(Answer::new);
    return lease.thenCombineAsync(read, (ttl, kv) -> judge(ttl, kv, leaseId, key, createRevision), executor)
        .thenCompose(next -> next);
  }

  /** One of etcd's answers, or the error asking failed with. */
  private record Answer<T>(T value, Throwable error) {}

  /** The lease decides first: a lease that is gone is a loss whatever the key read said or failed with. */
  private static CompletableFuture<Result> judge(Answer<Long> lease, Answer<GetResponse> read, long leaseId,
      String key, long createRevision) {
    if (lease.error() != null) {
      if (Futures.isNotFound(lease.error())) {
        return CompletableFuture.completedFuture(
            Result.lost(LockLoss.Reason.LEASE_GONE, "lease " + leaseId + " no longer exists (expired or revoked)"));
      }
      return CompletableFuture.failedFuture(Futures.unwrap(lease.error()));
    }
    long ttl = lease.value();
    if (ttl <= 0) {
      return CompletableFuture.completedFuture(
          Result.lost(LockLoss.Reason.LEASE_GONE, "lease " + leaseId + " has expired (TTL " + ttl + ")"));
    }
    if (read.error() != null) {
      return CompletableFuture.failedFuture(Futures.unwrap(read.error()));
    }
    return CompletableFuture.completedFuture(judgeKey(read.value(), leaseId, key, createRevision, ttl));
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
