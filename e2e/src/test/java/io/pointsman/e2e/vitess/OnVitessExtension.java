package io.pointsman.e2e.vitess;

import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.sandbox.stack.OpenedParts;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one lifecycle of a real {@link VitessCluster} in the tests: the class's cluster and, unless
 * {@link #withoutWorker()}, one {@link PointsmanOnVitess} worker on it for all the tests of a class,
 * started before the class's first test and closed after its last one, with whatever the class
 * {@link #open opened} on them. Registered as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));
 * }</pre>
 *
 * <p>A class's own {@code @BeforeAll} methods run after both are up, its {@code @AfterAll} methods
 * before they are closed. Everything is closed newest first (the class's parts, the worker, the
 * cluster), every part tried; a cluster whose worker failed to start is closed at once: a cluster
 * takes about 800 MB, and none may outlive its class.
 */
final class OnVitessExtension implements BeforeAllCallback, AfterAllCallback {
  /** Starts the class's cluster, with whatever workflow it needs created (e.g. {@link MoveTablesCluster#start}). */
  @FunctionalInterface
  interface ClusterStart {
    VitessCluster start() throws Exception;
  }

  /**
   * The same for a cluster that runs on something the class makes first (certificates, say): what
   * goes into {@code first} is closed after the cluster.
   */
  @FunctionalInterface
  interface ClusterStartOn {
    VitessCluster start(OpenedParts first) throws Exception;
  }

  private final ClusterStartOn clusterStart;
  private final boolean withWorker;
  private final UnaryOperator<SwitchActivities> switchWrapper;
  private OpenedParts opened;
  private VitessCluster cluster;
  private PointsmanOnVitess worker;

  private OnVitessExtension(ClusterStartOn clusterStart, boolean withWorker,
      UnaryOperator<SwitchActivities> switchWrapper) {
    this.clusterStart = clusterStart;
    this.withWorker = withWorker;
    this.switchWrapper = switchWrapper;
  }

  static OnVitessExtension of(ClusterStart clusterStart) {
    return on(first -> clusterStart.start());
  }

  static OnVitessExtension on(ClusterStartOn clusterStart) {
    return new OnVitessExtension(clusterStart, true, UnaryOperator.identity());
  }

  /** The same, with the worker's switch activities wrapped (a {@link io.pointsman.e2e.FaultInjection}). */
  OnVitessExtension withSwitchWrapper(UnaryOperator<SwitchActivities> wrapper) {
    return new OnVitessExtension(clusterStart, withWorker, wrapper);
  }

  /**
   * The cluster alone: for a class that talks to the tablets and vtctld through pointsman's ports and
   * clients, or that runs pointsman's worker as processes of its own.
   */
  OnVitessExtension withoutWorker() {
    return new OnVitessExtension(clusterStart, false, switchWrapper);
  }

  /** The class's cluster; only between its start and its close. */
  VitessCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the Vitess cluster is not up: it is there only while the class's tests run");
    }
    return cluster;
  }

  /** pointsman's worker on the class's cluster; only between its start and its close. */
  PointsmanOnVitess worker() {
    if (!withWorker) {
      throw new IllegalStateException("this class's Vitess cluster runs without pointsman's worker");
    }
    if (worker == null) {
      throw new IllegalStateException("pointsman's worker is not up: it is there only while the class's tests run");
    }
    return worker;
  }

  /**
   * Closes {@code part} with the class's cluster: after the class's {@code @AfterAll} methods,
   * before the worker and the cluster; returns it. For what a class's {@code @BeforeAll} opens on
   * the cluster (clients, held locks, a Temporal server).
   */
  <T extends AutoCloseable> T open(String what, T part) {
    if (opened == null) {
      throw new IllegalStateException("the Vitess cluster is not up: " + what + " cannot be closed with it");
    }
    return opened.add(what, part);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    OpenedParts parts = new OpenedParts();
    try {
      VitessCluster started = parts.add("the Vitess cluster", clusterStart.start(parts));
      worker = withWorker ? parts.add("pointsman's worker", PointsmanOnVitess.start(started, switchWrapper)) : null;
      cluster = started;
    } catch (Exception | Error e) {
      try {
        parts.closeAll("the Vitess cluster whose start failed");
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    opened = parts;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    OpenedParts closing = opened;
    opened = null;
    worker = null;
    cluster = null;
    if (closing != null) {
      closing.closeAll("the class's Vitess cluster");
    }
  }
}
