package io.pointsman.engine.primary.direct;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.StreamReadinessPort;
import java.util.List;
import java.util.Optional;

/**
 * {@link StreamReadinessPort} in the sandbox: pointsman writes the sidecar tables itself (its own
 * grants are checked when the worker starts), and the sandbox's streams read the primary's binlog,
 * so a shard can be streamed from when its primary resolves.
 */
final class DirectStreamReadiness extends DirectPort implements StreamReadinessPort {
  DirectStreamReadiness(Shared shared) {
    super(shared);
  }

  @Override
  public Optional<String> vreplicationPermissionProblem(ShardRef shard) {
    return Optional.empty();
  }

  @Override
  public Optional<String> noTabletToStreamFrom(ShardRef shard, List<String> cells, List<TabletType> tabletTypes) {
    try {
      at(shard);
      return Optional.empty();
    } catch (PointsmanException e) {
      return Optional.of("no primary to source data in keyspace " + shard.keyspace() + ", shard " + shard.shard()
          + ": " + e.getMessage());
    }
  }
}
