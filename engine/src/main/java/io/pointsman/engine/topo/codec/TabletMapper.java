package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;
import static io.pointsman.engine.topo.codec.ProtoFields.setOrClear;

import io.pointsman.engine.topo.model.Tablet;
import io.vitess.proto.Topodata;

/** topodata.Tablet; tags, collation, term and start/shutdown times are kept from the base. */
final class TabletMapper implements RecordMapper<Tablet, Topodata.Tablet> {
  @Override
  public Topodata.Tablet defaultInstance() {
    return Topodata.Tablet.getDefaultInstance();
  }

  @Override
  public Tablet fromProto(Topodata.Tablet m) {
    return new Tablet(
        m.hasAlias() ? ProtoFields.alias(m.getAlias()) : null,
        nullIfEmpty(m.getHostname()),
        m.getPortMapMap(),
        nullIfEmpty(m.getKeyspace()),
        nullIfEmpty(m.getShard()),
        ProtoFields.keyRangeOrNull(m.hasKeyRange(), m.getKeyRange()),
        ProtoFields.tabletType(m.getTypeValue()),
        nullIfEmpty(m.getDbNameOverride()),
        nullIfEmpty(m.getMysqlHostname()),
        m.getMysqlPort());
  }

  @Override
  public Topodata.Tablet toProto(Tablet v, Topodata.Tablet base) {
    Topodata.Tablet.Builder b = base.toBuilder();
    setOrClear(v.alias(), a -> b.setAlias(ProtoFields.alias(a, base.getAlias())), b::clearAlias);
    setOrClear(v.keyRange(), kr -> b.setKeyRange(ProtoFields.keyRange(kr, base.getKeyRange())), b::clearKeyRange);
    return b.setHostname(emptyIfNull(v.hostname()))
        .clearPortMap().putAllPortMap(v.portMap())
        .setKeyspace(emptyIfNull(v.keyspace()))
        .setShard(emptyIfNull(v.shard()))
        .setTypeValue(ProtoFields.tabletTypeNumber(v.type()))
        .setDbNameOverride(emptyIfNull(v.dbNameOverride()))
        .setMysqlHostname(emptyIfNull(v.mysqlHostname()))
        .setMysqlPort(v.mysqlPort())
        .build();
  }
}
