package io.pointsman.engine.primary.tablet;

import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.topo.TopologyStore;
import java.time.Clock;
import java.util.Objects;

/**
 * A port served by vttablets. {@link TabletPorts} builds what they work with once, as {@link Shared},
 * and hands it to each, so that every port of a worker talks to the tablets through one client, one
 * resolver of primaries and one fence.
 */
abstract class TabletPort {
  /** What the ports share: the topology, the tablet manager client, the primaries, the fence, the clock. */
  record Shared(TopologyStore topo, TabletManagerClient client, TabletPrimaries primaries, TabletFence fence,
      Clock clock) {}

  protected final TopologyStore topo;
  protected final TabletManagerClient client;
  protected final TabletPrimaries primaries;
  protected final TabletFence fence;
  protected final Clock clock;

  TabletPort(Shared shared) {
    this.topo = Objects.requireNonNull(shared.topo(), "topo");
    this.client = Objects.requireNonNull(shared.client(), "client");
    this.primaries = Objects.requireNonNull(shared.primaries(), "primaries");
    this.fence = Objects.requireNonNull(shared.fence(), "fence");
    this.clock = Objects.requireNonNull(shared.clock(), "clock");
  }
}
