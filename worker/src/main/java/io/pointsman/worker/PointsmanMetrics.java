package io.pointsman.worker;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockService;
import io.temporal.common.interceptors.WorkerInterceptor;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * pointsman's own metrics, next to the Temporal SDK's in the same registry:
 * <ul>
 *   <li>{@code pointsman_locks_held}: topology locks this worker renews right now;
 *   <li>{@code pointsman_lock_acquisitions_total{kind,outcome}}: locks taken (named, keyspace, shard);
 *   <li>{@code pointsman_lock_renewals_total{outcome}}: lease renewals (renewed, lease_gone, failed);
 *   <li>{@code pointsman_lock_losses_total{reason}}: locks lost, by {@link io.pointsman.engine.lock.LockLoss.Reason};
 *   <li>{@code pointsman_step_duration_seconds{step,outcome}}: each step (activity) as it ran here;
 *   <li>{@code pointsman_write_barrier_duration_seconds{outcome}}: how long writes were stopped, from
 *       the start of {@code stopSourceWrites} to the end of {@code changeRouting} (switched) or of
 *       {@code allowSourceWrites} (undone), when this worker ran both ends;
 *   <li>{@code pointsman_eager_activities_requested_total} and {@code _received_total}: activities
 *       this worker asked the server to hand it eagerly, and those it got ({@link EagerActivityWatch}).
 * </ul>
 * They are fed by wrapping the etcd client ({@link #meter(Client)}), the lock service
 * ({@link #meter(LockService)}) and the activities ({@link #interceptor()}); the activity code
 * itself knows nothing of them.
 */
public final class PointsmanMetrics {
  static final String STOP_WRITES = "stopSourceWrites";
  static final String CHANGE_ROUTING = "changeRouting";
  static final String ALLOW_SOURCE_WRITES = "allowSourceWrites";
  /** A barrier start this old without its end was ended on another worker: forget it. */
  private static final Duration FORGET_BARRIER_AFTER = Duration.ofHours(1);

  private final MeterRegistry registry;
  private final Set<HeldLock> held = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> barrierStarts = new ConcurrentHashMap<>();

  public PointsmanMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("pointsman.locks.held", this, PointsmanMetrics::locksHeld)
        .description("Topology locks this worker renews right now")
        .register(registry);
  }

  /** The etcd client the activities should use, counting lease renewals. */
  public Client meter(Client etcd) {
    return new MeteredEtcdClient(etcd, this);
  }

  /** The lock service the lock activities should use, counting held locks and losses. */
  public LockService meter(LockService locks) {
    return new MeteredLockService(locks, this);
  }

  /** Counts what {@code watch} sees of the server's eager activities. */
  public EagerActivityWatch meter(EagerActivityWatch watch) {
    FunctionCounter.builder("pointsman.eager.activities.requested", watch, EagerActivityWatch::requested)
        .description("Activities this worker asked the Temporal server to hand it eagerly")
        .register(registry);
    FunctionCounter.builder("pointsman.eager.activities.received", watch, EagerActivityWatch::received)
        .description("Activities the Temporal server handed this worker eagerly")
        .register(registry);
    return watch;
  }

  /** Times every activity as a step, and the write barrier between its steps. */
  public WorkerInterceptor interceptor() {
    return new StepMetricsInterceptor(this);
  }

  void track(HeldLock lock) {
    held.add(lock);
    lock.lossFuture().thenAccept(loss -> Counter.builder("pointsman.lock.losses")
        .description("Topology locks lost while held")
        .tag("reason", loss.reason().name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment());
  }

  void lockAcquired(String kind, boolean ok) {
    Counter.builder("pointsman.lock.acquisitions")
        .description("Topology locks taken")
        .tag("kind", kind)
        .tag("outcome", ok ? "ok" : "failed")
        .register(registry)
        .increment();
  }

  void leaseRenewal(boolean renewed, Throwable failure) {
    String outcome = renewed ? "renewed" : leaseGone(failure) ? "lease_gone" : "failed";
    Counter.builder("pointsman.lock.renewals")
        .description("Lease renewals (KeepAliveOnce) of topology locks")
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  void stepEnded(String step, String outcome, long nanos) {
    Timer.builder("pointsman.step.duration")
        .description("Duration of each step (activity attempt) run by this worker")
        .tag("step", step)
        .tag("outcome", outcome)
        .register(registry)
        .record(Duration.ofNanos(nanos));
  }

  /** A step started: a {@code stopSourceWrites} opens the write barrier of its workflow run. */
  void stepStarted(String step, String runKey, long startNanos) {
    if (step.equals(STOP_WRITES)) {
      barrierStarts.entrySet().removeIf(e -> startNanos - e.getValue() > FORGET_BARRIER_AFTER.toNanos());
      barrierStarts.putIfAbsent(runKey, startNanos);
    }
  }

  /** A step succeeded: writes flowing again ends the barrier. */
  void stepSucceeded(String step, String runKey, long endNanos) {
    String outcome = step.equals(CHANGE_ROUTING) ? "switched" : step.equals(ALLOW_SOURCE_WRITES) ? "undone" : null;
    if (outcome == null) {
      return;
    }
    Long start = barrierStarts.remove(runKey);
    if (start != null) {
      Timer.builder("pointsman.write.barrier.duration")
          .description("How long writes were stopped: stopSourceWrites start to changeRouting or allowSourceWrites end")
          .tag("outcome", outcome)
          .register(registry)
          .record(Duration.ofNanos(endNanos - start));
    }
  }

  private double locksHeld() {
    held.removeIf(l -> !l.isHeld());
    return held.size();
  }

  private static boolean leaseGone(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof EtcdException e && e.getErrorCode() == ErrorCode.NOT_FOUND) {
        return true;
      }
    }
    return failure == null; // answered, but with TTL 0: the lease no longer exists
  }
}
