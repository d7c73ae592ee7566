package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.Keyspace;
import io.vitess.proto.Topodata;

/** topodata.Keyspace; snapshot time, throttler and vtorc settings are kept from the base. */
final class KeyspaceMapper implements RecordMapper<Keyspace, Topodata.Keyspace> {
  @Override
  public Topodata.Keyspace defaultInstance() {
    return Topodata.Keyspace.getDefaultInstance();
  }

  @Override
  public Keyspace fromProto(Topodata.Keyspace m) {
    if (m.getKeyspaceType() == Topodata.KeyspaceType.UNRECOGNIZED) {
      throw new IllegalArgumentException("keyspace_type " + m.getKeyspaceTypeValue() + " is not one pointsman knows");
    }
    return new Keyspace(m.getKeyspaceType().name(), nullIfEmpty(m.getBaseKeyspace()),
        nullIfEmpty(m.getDurabilityPolicy()), nullIfEmpty(m.getSidecarDbName()));
  }

  @Override
  public Topodata.Keyspace toProto(Keyspace v, Topodata.Keyspace base) {
    Topodata.KeyspaceType type;
    try {
      type = Topodata.KeyspaceType.valueOf(v.keyspaceType());
    } catch (IllegalArgumentException e) {
      throw PointsmanException.invalidArgument("keyspace type '" + v.keyspaceType() + "' is not NORMAL or SNAPSHOT");
    }
    return base.toBuilder()
        .setKeyspaceType(type)
        .setBaseKeyspace(emptyIfNull(v.baseKeyspace()))
        .setDurabilityPolicy(emptyIfNull(v.durabilityPolicy()))
        .setSidecarDbName(emptyIfNull(v.sidecarDbName()))
        .build();
  }
}
