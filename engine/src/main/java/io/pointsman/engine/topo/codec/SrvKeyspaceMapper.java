package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.vitess.proto.Topodata;

/**
 * topodata.SrvKeyspace. Partitions are matched by served type, their shard references and
 * tablet controls by shard name; the throttler configs are kept from the base.
 */
final class SrvKeyspaceMapper implements RecordMapper<SrvKeyspace, Topodata.SrvKeyspace> {
  @Override
  public Topodata.SrvKeyspace defaultInstance() {
    return Topodata.SrvKeyspace.getDefaultInstance();
  }

  @Override
  public SrvKeyspace fromProto(Topodata.SrvKeyspace m) {
    return new SrvKeyspace(m.getPartitionsList().stream().map(p -> new KeyspacePartition(
        ProtoFields.tabletType(p.getServedTypeValue()),
        p.getShardReferencesList().stream().map(r -> new ShardReference(nullIfEmpty(r.getName()),
            ProtoFields.keyRangeOrNull(r.hasKeyRange(), r.getKeyRange()))).toList(),
        p.getShardTabletControlsList().stream().map(c -> new ShardTabletControl(nullIfEmpty(c.getName()),
            ProtoFields.keyRangeOrNull(c.hasKeyRange(), c.getKeyRange()), c.getQueryServiceDisabled())).toList()))
        .toList());
  }

  @Override
  public Topodata.SrvKeyspace toProto(SrvKeyspace v, Topodata.SrvKeyspace base) {
    return base.toBuilder().clearPartitions().addAllPartitions(Merge.byKey(base.getPartitionsList(),
        Topodata.SrvKeyspace.KeyspacePartition::getServedTypeValue, v.partitions(),
        p -> ProtoFields.tabletTypeNumber(p.servedType()), SrvKeyspaceMapper::partition,
        Topodata.SrvKeyspace.KeyspacePartition.getDefaultInstance())).build();
  }

  private static Topodata.SrvKeyspace.KeyspacePartition partition(
      KeyspacePartition v, Topodata.SrvKeyspace.KeyspacePartition base) {
    return base.toBuilder()
        .setServedTypeValue(ProtoFields.tabletTypeNumber(v.servedType()))
        .clearShardReferences().addAllShardReferences(Merge.byKey(base.getShardReferencesList(),
            Topodata.ShardReference::getName, v.shardReferences(), r -> emptyIfNull(r.name()),
            SrvKeyspaceMapper::reference, Topodata.ShardReference.getDefaultInstance()))
        .clearShardTabletControls().addAllShardTabletControls(Merge.byKey(base.getShardTabletControlsList(),
            Topodata.ShardTabletControl::getName, v.shardTabletControls(), c -> emptyIfNull(c.name()),
            SrvKeyspaceMapper::control, Topodata.ShardTabletControl.getDefaultInstance()))
        .build();
  }

  private static Topodata.ShardReference reference(ShardReference v, Topodata.ShardReference base) {
    Topodata.ShardReference.Builder b = base.toBuilder().setName(emptyIfNull(v.name()));
    setKeyRange(v.keyRange(), base.getKeyRange(), b::setKeyRange, b::clearKeyRange);
    return b.build();
  }

  private static Topodata.ShardTabletControl control(ShardTabletControl v, Topodata.ShardTabletControl base) {
    Topodata.ShardTabletControl.Builder b = base.toBuilder()
        .setName(emptyIfNull(v.name()))
        .setQueryServiceDisabled(v.queryServiceDisabled());
    setKeyRange(v.keyRange(), base.getKeyRange(), b::setKeyRange, b::clearKeyRange);
    return b.build();
  }

  private static void setKeyRange(KeyRange kr, Topodata.KeyRange base,
      java.util.function.Consumer<Topodata.KeyRange> set, Runnable clear) {
    if (kr == null) {
      clear.run();
    } else {
      set.accept(ProtoFields.keyRange(kr, base));
    }
  }
}
