package io.pointsman.worker;

import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockCheck;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.lock.LockStatus;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A lock service that tells {@link PointsmanMetrics} about every lock handle it hands out (taken or
 * attached), so the metrics can count the locks held and their losses by reason.
 */
final class MeteredLockService implements LockService {
  private final LockService delegate;
  private final PointsmanMetrics metrics;

  MeteredLockService(LockService delegate, PointsmanMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public HeldLock lockKeyspace(String keyspace, LockOptions options) {
    return acquired("keyspace", () -> delegate.lockKeyspace(keyspace, options));
  }

  @Override
  public HeldLock lockShard(String keyspace, String shard, LockOptions options) {
    return acquired("shard", () -> delegate.lockShard(keyspace, shard, options));
  }

  @Override
  public HeldLock lockNamed(String name, LockOptions options) {
    return acquired("named", () -> delegate.lockNamed(name, options));
  }

  @Override
  public HeldLock attach(LockToken token, LockOptions options, Instant now) {
    HeldLock lock = delegate.attach(token, options, now);
    metrics.track(lock);
    return lock;
  }

  @Override
  public List<HeldLock> attachAll(List<LockToken> tokens, Function<LockToken, LockOptions> options, Instant now) {
    List<HeldLock> attached = delegate.attachAll(tokens, options, now);
    attached.forEach(metrics::track);
    return attached;
  }

  @Override
  public LockStatus check(LockToken token) {
    return delegate.check(token);
  }

  @Override
  public List<LockStatus> checkAll(List<LockToken> tokens) {
    return delegate.checkAll(tokens);
  }

  @Override
  public LockCheck ask(List<LockToken> tokens) {
    return delegate.ask(tokens);
  }

  @Override
  public void release(LockToken token) {
    delegate.release(token);
  }

  private HeldLock acquired(String kind, Supplier<HeldLock> take) {
    HeldLock lock;
    try {
      lock = take.get();
    } catch (RuntimeException e) {
      metrics.lockAcquired(kind, false);
      throw e;
    }
    metrics.lockAcquired(kind, true);
    metrics.track(lock);
    return lock;
  }
}
