package io.pointsman.activities;

import io.pointsman.activities.show.MySqlSidecarReads;
import io.pointsman.activities.show.RoutedSidecarReads;
import io.pointsman.activities.show.SidecarReads;
import io.pointsman.activities.show.TabletSidecarReads;
import io.pointsman.activities.show.WorkflowShow;
import io.pointsman.api.activities.ShowActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.request.ShowRequest;
import io.pointsman.engine.Services;
import io.pointsman.engine.topo.TopologyStore;
import java.time.Clock;
import java.util.Objects;

/** {@link ShowActivities} on the worker's topology and shard primaries. */
public final class ShowActivitiesImpl implements ShowActivities {
  private final WorkflowShow show;

  public ShowActivitiesImpl(Services services) {
    this(services.store(), new RoutedSidecarReads(services::byTablet,
        new TabletSidecarReads(services.tablets(), services.tabletPorts().primaries(), services.tabletPorts().streams()),
        new MySqlSidecarReads(services.pools(), services.primaries(), services.streams())));
  }

  public ShowActivitiesImpl(TopologyStore store, SidecarReads reads) {
    this.show = new WorkflowShow(Objects.requireNonNull(store, "store"), Objects.requireNonNull(reads, "reads"),
        Clock.systemUTC());
  }

  /**
   * A workflow that is not there (never created, or completed or cancelled: the Status after a
   * Complete) is an answer the caller reports, so it leaves as BENIGN, without a warning in the
   * worker's log.
   */
  @Override
  public String showWorkflow(ShowRequest request) {
    return ActivityFailures.translateExpecting(ErrorCode.NOT_FOUND, () -> switch (request.view()) {
      case SHOW -> WorkflowShow.json(show.show(request.targetKeyspace(), request.workflow(), request.includeLogs()));
      case STATUS -> WorkflowShow.json(show.status(request.targetKeyspace(), request.workflow()));
    });
  }
}
