package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamReadinessPort;
import io.pointsman.engine.tablet.TabletEndpoint;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.Tablet;
import io.vitess.proto.Query.StreamHealthResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link StreamReadinessPort} as vtctld judges it: the primary's own permission test
 * (ValidateVReplicationPermissions), and a tablet of the shard, in the cells and of the types
 * asked, that answers its health stream with no health error. Vitess's tablet picker also asks
 * that it serves; see {@link #unusable} for why pointsman does not.
 */
public final class TabletStreamReadiness extends TabletPort implements StreamReadinessPort {
  TabletStreamReadiness(Shared shared) {
    super(shared);
  }

  @Override
  public Optional<String> vreplicationPermissionProblem(ShardRef shard) {
    TabletPrimary p = primaries.resolve(shard);
    return client.validateVReplicationPermissions(p.endpoint())
        .filter(r -> !r.getOk())
        .map(r -> "the filtered replication user " + (r.getUser().isEmpty() ? "" : "'" + r.getUser() + "' ")
            + "of primary " + p.endpoint().alias() + " of " + shard + " cannot manage VReplication's sidecar tables"
            + (r.getError().isEmpty() ? "" : ": " + r.getError()));
  }

  @Override
  public Optional<String> noTabletToStreamFrom(ShardRef shard, List<String> cells, List<TabletType> tabletTypes) {
    List<String> looked = cells(shard, cells);
    List<String> why = new ArrayList<>();
    for (String cell : looked) {
      for (TabletAlias alias : topo.listTablets(cell)) {
        Optional<Tablet> t = topo.get(topo.keys().tablet(alias)).map(v -> v.value());
        if (t.isEmpty() || !shard.keyspace().equals(t.get().keyspace()) || !shard.shard().equals(t.get().shard())
            || !tabletTypes.contains(t.get().type())) {
          continue;
        }
        Optional<String> unusable = unusable(alias, t.get());
        if (unusable.isEmpty()) {
          return Optional.empty();
        }
        why.add(unusable.get());
      }
    }
    return Optional.of("no tablet found to source data in keyspace " + shard.keyspace() + ", shard " + shard.shard()
        + " (cells " + looked + ", tablet types " + tabletTypes + ")"
        + (why.isEmpty() ? "" : ": " + String.join("; ", why)));
  }

  /** Why this tablet cannot be streamed from, or empty when its health report says it can. */
  private Optional<String> unusable(TabletAlias alias, Tablet t) {
    Integer grpc = t.portMap().get(TabletPrimaries.GRPC_PORT);
    if (grpc == null) {
      return Optional.of("tablet " + alias + " has no gRPC port");
    }
    try {
      StreamHealthResponse h = client.health(new TabletEndpoint(alias, t.hostname(), grpc));
      // Serving is not asked: a Reshard's new shards serve only once writes switch, and vtctld was
      // measured switching them while their primaries reported not serving.
      String error = h.getRealtimeStats().getHealthError();
      return error.isEmpty() ? Optional.empty() : Optional.of("tablet " + alias + " is unhealthy: " + error);
    } catch (PointsmanException e) {
      return Optional.of("tablet " + alias + " did not report its health: " + e.getMessage());
    }
  }

  /** The cells asked (aliases already read as their cells); none asked: the primary's cell. */
  private List<String> cells(ShardRef shard, List<String> asked) {
    return asked.isEmpty() ? List.of(primaries.resolve(shard).endpoint().alias().cell()) : asked;
  }
}
