package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.CellInfo;
import io.vitess.proto.Topodata;

/** topodata.CellInfo. */
final class CellInfoMapper implements RecordMapper<CellInfo, Topodata.CellInfo> {
  @Override
  public Topodata.CellInfo defaultInstance() {
    return Topodata.CellInfo.getDefaultInstance();
  }

  @Override
  public CellInfo fromProto(Topodata.CellInfo m) {
    return new CellInfo(nullIfEmpty(m.getServerAddress()), nullIfEmpty(m.getRoot()));
  }

  @Override
  public Topodata.CellInfo toProto(CellInfo v, Topodata.CellInfo base) {
    return base.toBuilder().setServerAddress(emptyIfNull(v.serverAddress())).setRoot(emptyIfNull(v.root())).build();
  }
}
