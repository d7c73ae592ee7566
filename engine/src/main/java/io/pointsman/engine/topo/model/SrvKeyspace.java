package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import java.util.List;
import java.util.Optional;

/** topodata.SrvKeyspace: the per-cell serving graph of a keyspace. */
public record SrvKeyspace(List<KeyspacePartition> partitions) {
  public SrvKeyspace {
    partitions = partitions == null ? List.of() : List.copyOf(partitions);
  }

  public Optional<KeyspacePartition> partition(TabletType type) {
    return partitions.stream().filter(p -> p.servedType() == type).findFirst();
  }
}
