package io.pointsman.engine.topo.model;

import java.util.List;

/** topodata.Shard.SourceShard (legacy filtered replication; carried, not used). */
public record SourceShard(long uid, String keyspace, String shard, KeyRange keyRange, List<String> tables) {
  public SourceShard {
    tables = tables == null ? List.of() : List.copyOf(tables);
  }
}
