package io.pointsman.e2e.vitess;

import io.pointsman.api.activities.SwitchActivities;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@link VitessCluster} and one {@link PointsmanOnVitess} worker on it for all the tests of
 * a class: started before the class's first test, closed (worker first, then cluster) after its last
 * one. Registered as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));
 * }</pre>
 *
 * <p>A class's own {@code @BeforeAll} methods run after both are up, its {@code @AfterAll} methods
 * before they are closed. A cluster whose worker failed to start is closed at once: a cluster takes
 * about 800 MB, and none may outlive its class.
 */
final class OnVitessExtension implements BeforeAllCallback, AfterAllCallback {
  /** Starts the class's cluster, with whatever workflow it needs created (e.g. {@link MoveTablesCluster#start}). */
  @FunctionalInterface
  interface ClusterStart {
    VitessCluster start() throws Exception;
  }

  private final ClusterStart clusterStart;
  private final UnaryOperator<SwitchActivities> switchWrapper;
  private VitessCluster cluster;
  private PointsmanOnVitess worker;

  private OnVitessExtension(ClusterStart clusterStart, UnaryOperator<SwitchActivities> switchWrapper) {
    this.clusterStart = clusterStart;
    this.switchWrapper = switchWrapper;
  }

  static OnVitessExtension of(ClusterStart clusterStart) {
    return new OnVitessExtension(clusterStart, UnaryOperator.identity());
  }

  /** The same, with the worker's switch activities wrapped (a {@link io.pointsman.e2e.FaultInjection}). */
  OnVitessExtension withSwitchWrapper(UnaryOperator<SwitchActivities> wrapper) {
    return new OnVitessExtension(clusterStart, wrapper);
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
    if (worker == null) {
      throw new IllegalStateException("pointsman's worker is not up: it is there only while the class's tests run");
    }
    return worker;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    VitessCluster started = clusterStart.start();
    try {
      worker = PointsmanOnVitess.start(started, switchWrapper);
    } catch (RuntimeException | Error e) {
      started.close();
      throw e;
    }
    cluster = started;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    PointsmanOnVitess closingWorker = worker;
    VitessCluster closingCluster = cluster;
    worker = null;
    cluster = null;
    try {
      if (closingWorker != null) {
        closingWorker.close();
      }
    } finally {
      if (closingCluster != null) {
        closingCluster.close();
      }
    }
  }
}
