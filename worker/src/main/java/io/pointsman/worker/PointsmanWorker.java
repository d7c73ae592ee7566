package io.pointsman.worker;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pointsman.activities.CleanupActivitiesImpl;
import io.pointsman.activities.FailoverToolActivitiesImpl;
import io.pointsman.activities.JournalActivitiesImpl;
import io.pointsman.activities.LockActivitiesImpl;
import io.pointsman.activities.ShowActivitiesImpl;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.activities.ValidateActivitiesImpl;
import io.pointsman.client.TemporalConnection;
import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.vtorc.FailoverToolCheck;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running pointsman worker: connected to Temporal, etcd and the shard primaries, polling the task
 * queue with the four workflows and their activities registered, its search attributes in place and
 * its metrics served. {@link #close()} stops polling, lets running activities finish for the
 * configured grace, interrupts the rest, then closes every connection.
 */
public final class PointsmanWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PointsmanWorker.class);
  /** How long the start waits for Temporal to answer before giving up. */
  static final Duration TEMPORAL_WAIT = Duration.ofMinutes(1);
  private static final Duration FORCED_STOP_WAIT = Duration.ofSeconds(10);
  /**
   * A cancellation reaches an activity only in the answer to a heartbeat, and the SDK otherwise
   * holds heartbeats back for up to 0.8 of the heartbeat timeout: 24 s for holdLocks with the
   * default 2 m lock TTL, during which a finished action would keep its locks. One second lets
   * every heartbeat an activity makes through, at most one per second.
   */
  static final Duration HEARTBEAT_THROTTLE = Duration.ofSeconds(1);

  private final WorkerConfig config;
  private final Deque<AutoCloseable> resources;
  private final WorkerFactory factory;
  private final TemporalConnection temporal;
  private final PrometheusMeterRegistry registry;
  private final MetricsServer metricsServer;
  private final EagerActivityWatch eagerActivities;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PointsmanWorker(WorkerConfig config, Deque<AutoCloseable> resources, WorkerFactory factory,
      TemporalConnection temporal, PrometheusMeterRegistry registry, MetricsServer metricsServer,
      EagerActivityWatch eagerActivities) {
    this.config = config;
    this.resources = resources;
    this.factory = factory;
    this.temporal = temporal;
    this.registry = registry;
    this.metricsServer = metricsServer;
    this.eagerActivities = eagerActivities;
  }

  /** What the worker sees of the server's eager activities (its counters are on /metrics too). */
  public EagerActivityWatch eagerActivities() {
    return eagerActivities;
  }

  private static WorkerInterceptor[] withMetrics(PointsmanMetrics metrics) {
    List<WorkerInterceptor> all = new ArrayList<>(List.of(WorkflowRegistration.interceptors()));
    all.add(metrics.interceptor());
    return all.toArray(WorkerInterceptor[]::new);
  }

  /**
   * Connects, registers and starts polling. On failure, whatever was opened is closed again.
   *
   * @throws ConfigException when the metrics port cannot be bound
   * @throws IllegalStateException when Temporal did not answer within {@link #TEMPORAL_WAIT}, or a
   *     search attribute exists with another type
   */
  public static PointsmanWorker start(WorkerConfig config) {
    return start(config, true);
  }

  /**
   * {@link #start(WorkerConfig)}, saying whether the server can hand activities out eagerly at all:
   * the SDK's in-memory test server cannot, and the worker then does not advise a setting that it
   * does not have.
   */
  public static PointsmanWorker start(WorkerConfig config, boolean serverHasEagerActivities) {
    BenignWorkflowFailureFilter.install();
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      opened.push(registry::close);
      new JvmMemoryMetrics().bindTo(registry);
      new JvmThreadMetrics().bindTo(registry);
      new ProcessorMetrics().bindTo(registry);
      new UptimeMetrics().bindTo(registry);
      JvmGcMetrics gc = new JvmGcMetrics();
      gc.bindTo(registry);
      opened.push(gc);
      PointsmanMetrics metrics = new PointsmanMetrics(registry);

      Scope scope = new RootScopeBuilder().reporter(new MicrometerClientStatsReporter(registry))
          .reportEvery(com.uber.m3.util.Duration.ofSeconds(5));
      opened.push(scope);
      EagerActivityWatch eager = metrics.meter(new EagerActivityWatch(config.temporal().namespace(),
          serverHasEagerActivities));
      TemporalConnection temporal = TemporalConnection.lazy(config.temporal(), scope, List.of(eager));
      opened.push(temporal);
      SearchAttributeSetup.ensure(temporal, TEMPORAL_WAIT);

      Client etcd = metrics.meter(EtcdClients.create(config.etcd()));
      opened.push(etcd);
      Services services = new Services(etcd, config.topoPaths(), config.mysql(), config.tablets(),
          config.primaryBackend(), config.tabletWriteBarrier());
      opened.push(services);

      WorkerFactory factory = WorkerFactory.newInstance(temporal.client(),
          WorkerFactoryOptions.newBuilder().setWorkerInterceptors(withMetrics(metrics)).build());
      Worker worker = factory.newWorker(config.temporal().taskQueue(), WorkerOptions.newBuilder()
          .setMaxHeartbeatThrottleInterval(HEARTBEAT_THROTTLE)
          .build());
      WorkflowRegistration.registerWorkflows(worker);
      worker.registerActivitiesImplementations(new SwitchActivitiesImpl(services), new CleanupActivitiesImpl(services),
          new LockActivitiesImpl(metrics.meter(services.locks())),
          new FailoverToolActivitiesImpl(FailoverToolCheck.of(config.vtorcAddresses())),
          new JournalActivitiesImpl(services),
          new ValidateActivitiesImpl(etcd, config.topoPaths(), services), new ShowActivitiesImpl(services));

      MetricsServer metricsServer = config.metricsPort() > 0 ? MetricsServer.start(config.metricsPort(), registry) : null;
      if (metricsServer != null) {
        opened.push(metricsServer);
      }
      factory.start();
      log.info("pointsman worker polling task queue {} in namespace {} at {}; etcd {}, topology {} and {}/<cell>",
          config.temporal().taskQueue(), config.temporal().namespace(), config.temporal().address(),
          config.etcd().endpoints(), config.topoPaths().globalRoot(), config.topoPaths().cellRootPrefix());
      return new PointsmanWorker(config, opened, factory, temporal, registry, metricsServer, eager);
    } catch (RuntimeException | Error e) {
      closeAll(opened, e);
      throw e;
    }
  }

  public WorkerConfig config() {
    return config;
  }

  public TemporalConnection temporal() {
    return temporal;
  }

  /** The registry behind {@code /metrics}, SDK and pointsman metrics alike. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The port {@code /metrics} is served on; 0 when metrics are off. */
  public int metricsPort() {
    return metricsServer == null ? 0 : metricsServer.port();
  }

  /**
   * Stops polling at once, waits up to the shutdown grace for running activities (a switch step in
   * flight ends, or heartbeats its cancellation), interrupts what is left, then closes the
   * connections. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info("pointsman worker stopping: waiting up to {} for running activities", config.shutdownGrace());
    factory.shutdown();
    factory.awaitTermination(config.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS);
    if (!factory.isTerminated()) {
      log.warn("activities still running after {}: interrupting them (Temporal retries them elsewhere)",
          config.shutdownGrace());
      factory.shutdownNow();
      factory.awaitTermination(FORCED_STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
    closeAll(resources, null);
    log.info("pointsman worker stopped");
  }

  private static void closeAll(Deque<AutoCloseable> opened, Throwable primary) {
    while (!opened.isEmpty()) {
      AutoCloseable c = opened.pop();
      try {
        c.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          log.warn("closing {} failed: {}", c, e.toString());
        }
      }
    }
  }
}
