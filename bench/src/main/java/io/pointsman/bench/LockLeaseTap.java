package io.pointsman.bench;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.pointsman.engine.etcd.ForwardingEtcdClient;
import io.pointsman.engine.etcd.ForwardingLease;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A jetcd client that passes every call through and notes, for each lease, when its grant and each
 * successful keep-alive were sent. The lock service exposes no renewal count, and it renews with
 * KeepAliveOnce on its own threads, so watching the lease client is the one way to see its renewals
 * without changing it. The send time is what matters: the service's local deadline, and etcd's
 * expiry, both run from a renewal that etcd received no earlier than it was sent.
 */
final class LockLeaseTap extends ForwardingEtcdClient {
  private final ConcurrentLinkedQueue<long[]> sent = new ConcurrentLinkedQueue<>();
  private final AtomicLong failedKeepAlives = new AtomicLong();
  private volatile boolean recording = true;

  LockLeaseTap(Client etcd) {
    super(etcd);
  }

  /** Ends recording, so later keep-alives (e.g. the final check's) are not counted as renewals. */
  void stop() {
    recording = false;
  }

  /** Keep-alives that failed or found the lease expired while recording. */
  long failedKeepAlives() {
    return failedKeepAlives.get();
  }

  /**
   * The send times of each lease's grant and successful keep-alives, in order.
   *
   * @param leaseIds the leases of interest; one without any record has an empty list
   */
  Map<Long, List<Long>> sendTimes(Collection<Long> leaseIds) {
    Map<Long, List<Long>> out = new HashMap<>();
    for (long id : leaseIds) {
      out.put(id, new ArrayList<>());
    }
    for (long[] e : sent) {
      List<Long> times = out.get(e[0]);
      if (times != null) {
        times.add(e[1]);
      }
    }
    out.values().forEach(times -> times.sort(null));
    return out;
  }

  @Override
  protected Lease wrapLeases(Lease leases) {
    return new TappedLease(leases);
  }

  /** The wrapped client stays its owner's. */
  @Override
  public void close() {}

  private final class TappedLease extends ForwardingLease {
    TappedLease(Lease leases) {
      super(leases);
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttl) {
      return noteGrant(System.nanoTime(), wrapped.grant(ttl));
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttl, long timeout, TimeUnit unit) {
      return noteGrant(System.nanoTime(), wrapped.grant(ttl, timeout, unit));
    }

    @Override
    public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
      long sentAt = System.nanoTime();
      boolean counted = recording;
      CompletableFuture<LeaseKeepAliveResponse> answer = wrapped.keepAliveOnce(leaseId);
      if (counted) {
        // on a jetcd thread: only a lock-free append or increment here
        answer.whenComplete((r, error) -> {
          if (error == null && r.getTTL() > 0) {
            sent.add(new long[] {leaseId, sentAt});
          } else {
            failedKeepAlives.incrementAndGet();
          }
        });
      }
      return answer;
    }

    /** The lease client belongs to the wrapped client. */
    @Override
    public void close() {}

    private CompletableFuture<LeaseGrantResponse> noteGrant(long sentAt, CompletableFuture<LeaseGrantResponse> answer) {
      if (recording) {
        answer.whenComplete((r, error) -> {
          if (error == null) {
            sent.add(new long[] {r.getID(), sentAt});
          }
        });
      }
      return answer;
    }
  }
}
