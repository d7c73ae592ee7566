package io.pointsman.worker;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.pointsman.engine.etcd.ForwardingEtcdClient;
import io.pointsman.engine.etcd.ForwardingLease;
import java.util.concurrent.CompletableFuture;

/**
 * An etcd client that counts lease renewals on their way to etcd: every lock renewal of pointsman
 * is one KeepAliveOnce (its lock service never uses jetcd's streaming keep-alive), so counting
 * them here measures renewals without reaching into the lock code. Everything else passes through.
 */
final class MeteredEtcdClient extends ForwardingEtcdClient {
  private final PointsmanMetrics metrics;

  MeteredEtcdClient(Client delegate, PointsmanMetrics metrics) {
    super(delegate);
    this.metrics = metrics;
  }

  @Override
  protected Lease wrapLeases(Lease leases) {
    return new ForwardingLease(leases) {
      @Override
      public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
        // whenComplete runs on jetcd's thread: only counters are touched there, nothing blocks
        return wrapped.keepAliveOnce(leaseId)
            .whenComplete((r, e) -> metrics.leaseRenewal(e == null && r.getTTL() > 0, e));
      }
    };
  }
}
