package io.pointsman.engine.etcd;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Watch;
import java.util.Objects;

/**
 * An etcd client that passes every call to another, except that its lease client is the wrapped
 * client's wrapped once more by {@link #wrapLeases} (a {@link ForwardingLease} that watches the
 * renewals), made on first use.
 */
public abstract class ForwardingEtcdClient implements Client {
  protected final Client delegate;
  private volatile Lease leases;

  protected ForwardingEtcdClient(Client delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The lease client this client hands out, around the wrapped client's. */
  protected abstract Lease wrapLeases(Lease leases);

  @Override
  public Lease getLeaseClient() {
    Lease l = leases;
    if (l == null) {
      synchronized (this) {
        if (leases == null) {
          leases = wrapLeases(delegate.getLeaseClient());
        }
        l = leases;
      }
    }
    return l;
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
}
