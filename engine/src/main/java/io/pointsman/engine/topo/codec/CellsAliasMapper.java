package io.pointsman.engine.topo.codec;

import io.pointsman.engine.topo.model.CellsAlias;
import io.vitess.proto.Topodata;

/** topodata.CellsAlias. */
final class CellsAliasMapper implements RecordMapper<CellsAlias, Topodata.CellsAlias> {
  @Override
  public Topodata.CellsAlias defaultInstance() {
    return Topodata.CellsAlias.getDefaultInstance();
  }

  @Override
  public CellsAlias fromProto(Topodata.CellsAlias m) {
    return new CellsAlias(m.getCellsList());
  }

  @Override
  public Topodata.CellsAlias toProto(CellsAlias v, Topodata.CellsAlias base) {
    return base.toBuilder().clearCells().addAllCells(v.cells()).build();
  }
}
