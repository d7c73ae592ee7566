package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

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
    if (v.alias() == null) {
      b.clearAlias();
    } else {
      b.setAlias(ProtoFields.alias(v.alias(), base.getAlias()));
    }
    if (v.keyRange() == null) {
      b.clearKeyRange();
    } else {
      b.setKeyRange(ProtoFields.keyRange(v.keyRange(), base.getKeyRange()));
    }
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
