package io.pointsman.engine.topo;

import io.pointsman.api.model.UnfinishedCleanup;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.CellsAlias;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;

/** Typed record keys over {@link TopoPaths}. */
public final class TopoKeys {
  private final TopoPaths paths;

  public TopoKeys(TopoPaths paths) {
    this.paths = paths;
  }

  public TopoPaths paths() {
    return paths;
  }

  public RecordKey<Keyspace> keyspace(String keyspace) {
    return new RecordKey<>(paths.keyspace(keyspace), Keyspace.class);
  }

  public RecordKey<Shard> shard(String keyspace, String shard) {
    return new RecordKey<>(paths.shard(keyspace, shard), Shard.class);
  }

  public RecordKey<VSchema> vschema(String keyspace) {
    return new RecordKey<>(paths.vschema(keyspace), VSchema.class);
  }

  public RecordKey<RoutingRules> routingRules() {
    return new RecordKey<>(paths.routingRules(), RoutingRules.class);
  }

  public RecordKey<ShardRoutingRules> shardRoutingRules() {
    return new RecordKey<>(paths.shardRoutingRules(), ShardRoutingRules.class);
  }

  public RecordKey<KeyspaceRoutingRules> keyspaceRoutingRules() {
    return new RecordKey<>(paths.keyspaceRoutingRules(), KeyspaceRoutingRules.class);
  }

  public RecordKey<MirrorRules> mirrorRules() {
    return new RecordKey<>(paths.mirrorRules(), MirrorRules.class);
  }

  public RecordKey<CellInfo> cellInfo(String cell) {
    return new RecordKey<>(paths.cellInfo(cell), CellInfo.class);
  }

  public RecordKey<CellsAlias> cellsAlias(String alias) {
    return new RecordKey<>(paths.cellsAlias(alias), CellsAlias.class);
  }

  public RecordKey<SrvKeyspace> srvKeyspace(String cell, String keyspace) {
    return new RecordKey<>(paths.srvKeyspace(cell, keyspace), SrvKeyspace.class);
  }

  public RecordKey<SrvVSchema> srvVSchema(String cell) {
    return new RecordKey<>(paths.srvVSchema(cell), SrvVSchema.class);
  }

  public RecordKey<UnfinishedCleanup> unfinishedCleanup(String keyspace, String workflow) {
    return new RecordKey<>(paths.unfinishedCleanup(keyspace, workflow), UnfinishedCleanup.class);
  }

  public RecordKey<Tablet> tablet(TabletAlias alias) {
    return new RecordKey<>(paths.tablet(alias), Tablet.class);
  }
}
