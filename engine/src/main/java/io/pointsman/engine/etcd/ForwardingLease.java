package io.pointsman.engine.etcd;

import io.etcd.jetcd.Lease;
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
 * A lease client that passes every call to another. Subclasses override the calls they watch: the
 * lock service renews with KeepAliveOnce, so a wrapper here sees every renewal without reaching
 * into the lock code.
 */
public abstract class ForwardingLease implements Lease {
  protected final Lease wrapped;

  protected ForwardingLease(Lease wrapped) {
    this.wrapped = wrapped;
  }

  @Override
  public CompletableFuture<LeaseGrantResponse> grant(long ttl) {
    return wrapped.grant(ttl);
  }

  @Override
  public CompletableFuture<LeaseGrantResponse> grant(long ttl, long timeout, TimeUnit unit) {
    return wrapped.grant(ttl, timeout, unit);
  }

  @Override
  public CompletableFuture<LeaseRevokeResponse> revoke(long leaseId) {
    return wrapped.revoke(leaseId);
  }

  @Override
  public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
    return wrapped.keepAliveOnce(leaseId);
  }

  @Override
  public CompletableFuture<LeaseTimeToLiveResponse> timeToLive(long leaseId, LeaseOption option) {
    return wrapped.timeToLive(leaseId, option);
  }

  @Override
  public CloseableClient keepAlive(long leaseId, StreamObserver<LeaseKeepAliveResponse> observer) {
    return wrapped.keepAlive(leaseId, observer);
  }

  @Override
  public void close() {
    wrapped.close();
  }
}
