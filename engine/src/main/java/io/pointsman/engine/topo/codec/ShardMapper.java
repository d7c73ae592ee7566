package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;
import static io.pointsman.engine.topo.codec.ProtoFields.setOrClear;

import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SourceShard;
import io.pointsman.engine.topo.model.TabletControl;
import io.vitess.proto.Topodata;

/**
 * topodata.Shard. Tablet controls are matched by tablet type; source shards by uid; vtorc_state is
 * kept from the base.
 */
final class ShardMapper implements RecordMapper<Shard, Topodata.Shard> {
  @Override
  public Topodata.Shard defaultInstance() {
    return Topodata.Shard.getDefaultInstance();
  }

  @Override
  public Shard fromProto(Topodata.Shard m) {
    return new Shard(
        m.hasPrimaryAlias() ? ProtoFields.alias(m.getPrimaryAlias()) : null,
        m.hasPrimaryTermStartTime() ? ProtoFields.time(m.getPrimaryTermStartTime()) : null,
        ProtoFields.keyRangeOrNull(m.hasKeyRange(), m.getKeyRange()),
        m.getSourceShardsList().stream().map(s -> new SourceShard(s.getUid(), nullIfEmpty(s.getKeyspace()),
            nullIfEmpty(s.getShard()), ProtoFields.keyRangeOrNull(s.hasKeyRange(), s.getKeyRange()),
            s.getTablesList())).toList(),
        m.getTabletControlsList().stream().map(tc -> new TabletControl(ProtoFields.tabletType(tc.getTabletTypeValue()),
            tc.getCellsList(), tc.getDeniedTablesList(), tc.getFrozen(), tc.getAllowReads())).toList(),
        m.getIsPrimaryServing());
  }

  @Override
  public Topodata.Shard toProto(Shard v, Topodata.Shard base) {
    Topodata.Shard.Builder b = base.toBuilder();
    setOrClear(v.primaryAlias(), a -> b.setPrimaryAlias(ProtoFields.alias(a, base.getPrimaryAlias())),
        b::clearPrimaryAlias);
    setOrClear(v.primaryTermStartTime(),
        t -> b.setPrimaryTermStartTime(ProtoFields.time(t, base.getPrimaryTermStartTime())),
        b::clearPrimaryTermStartTime);
    // The model reads an absent key range as the full one; Vitess leaves it absent for an
    // unsharded shard, so the full range is written only where the base already had the field.
    if (!v.keyRange().isFull() || base.hasKeyRange()) {
      b.setKeyRange(ProtoFields.keyRange(v.keyRange(), base.getKeyRange()));
    }
    b.clearSourceShards().addAllSourceShards(Merge.byKey(base.getSourceShardsList(),
        s -> (long) s.getUid(), v.sourceShards(), SourceShard::uid, ShardMapper::sourceShard,
        Topodata.Shard.SourceShard.getDefaultInstance()));
    b.clearTabletControls().addAllTabletControls(Merge.byKey(base.getTabletControlsList(),
        Topodata.Shard.TabletControl::getTabletTypeValue, v.tabletControls(),
        tc -> ProtoFields.tabletTypeNumber(tc.tabletType()), ShardMapper::tabletControl,
        Topodata.Shard.TabletControl.getDefaultInstance()));
    return b.setIsPrimaryServing(v.isPrimaryServing()).build();
  }

  private static Topodata.Shard.SourceShard sourceShard(SourceShard v, Topodata.Shard.SourceShard base) {
    Topodata.Shard.SourceShard.Builder b = base.toBuilder()
        .setUid((int) v.uid())
        .setKeyspace(emptyIfNull(v.keyspace()))
        .setShard(emptyIfNull(v.shard()))
        .clearTables().addAllTables(v.tables());
    setOrClear(v.keyRange(), kr -> b.setKeyRange(ProtoFields.keyRange(kr, base.getKeyRange())), b::clearKeyRange);
    return b.build();
  }

  private static Topodata.Shard.TabletControl tabletControl(TabletControl v, Topodata.Shard.TabletControl base) {
    return base.toBuilder()
        .setTabletTypeValue(ProtoFields.tabletTypeNumber(v.tabletType()))
        .clearCells().addAllCells(v.cells())
        .clearDeniedTables().addAllDeniedTables(v.deniedTables())
        .setFrozen(v.frozen())
        .setAllowReads(v.allowReads())
        .build();
  }
}
