package io.pointsman.worker;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseRevokeResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An etcd client that counts lease renewals on their way to etcd: every lock renewal of pointsman
 * is one KeepAliveOnce (its lock service never uses jetcd's streaming keep-alive), so counting
 * them here measures renewals without reaching into the lock code. Everything else passes through.
 */
final class MeteredEtcdClient implements Client {
  private final Client delegate;
  private final PointsmanMetrics metrics;
  private volatile Lease lease;

  MeteredEtcdClient(Client delegate, PointsmanMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public Auth getAuthClient() {
    return delegate.getAuthClient();
  }

  @Override
  public KV getKVClient() {
    return delegate.getKVClient();
  }

  @Override
  public Cluster getClusterClient() {
    return delegate.getClusterClient();
  }

  @Override
  public Maintenance getMaintenanceClient() {
    return delegate.getMaintenanceClient();
  }

  @Override
  public Lease getLeaseClient() {
    Lease l = lease;
    if (l == null) {
      synchronized (this) {
        if (lease == null) {
          lease = new MeteredLease(delegate.getLeaseClient());
        }
        l = lease;
      }
    }
    return l;
  }

  @Override
  public Watch getWatchClient() {
    return delegate.getWatchClient();
  }

  @Override
  public Lock getLockClient() {
    return delegate.getLockClient();
  }

  @Override
  public Election getElectionClient() {
    return delegate.getElectionClient();
  }

  @Override
  public void close() {
    delegate.close();
  }

  private final class MeteredLease implements Lease {
    private final Lease leases;

    MeteredLease(Lease leases) {
      this.leases = leases;
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttl) {
      return leases.grant(ttl);
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttl, long timeout, TimeUnit unit) {
      return leases.grant(ttl, timeout, unit);
    }

    @Override
    public CompletableFuture<LeaseRevokeResponse> revoke(long leaseId) {
      return leases.revoke(leaseId);
    }

    @Override
    public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
      // whenComplete runs on jetcd's thread: only counters are touched there, nothing blocks
      return leases.keepAliveOnce(leaseId).whenComplete((r, e) -> metrics.leaseRenewal(e == null && r.getTTL() > 0,
          e));
    }

    @Override
    public CompletableFuture<LeaseTimeToLiveResponse> timeToLive(long leaseId, LeaseOption option) {
      return leases.timeToLive(leaseId, option);
    }

    @Override
    public CloseableClient keepAlive(long leaseId, StreamObserver<LeaseKeepAliveResponse> observer) {
      return leases.keepAlive(leaseId, observer);
    }

    @Override
    public void close() {
      leases.close();
    }
  }
}
