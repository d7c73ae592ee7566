package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import java.util.List;

/** topodata.SrvKeyspace.KeyspacePartition: which shards serve one tablet type. */
public record KeyspacePartition(
    TabletType servedType, List<ShardReference> shardReferences, List<ShardTabletControl> shardTabletControls) {
  public KeyspacePartition {
    shardReferences = shardReferences == null ? List.of() : List.copyOf(shardReferences);
    shardTabletControls = shardTabletControls == null ? List.of() : List.copyOf(shardTabletControls);
  }
}
