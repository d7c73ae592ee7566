package io.pointsman.engine.switching;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.VSchema;
import java.util.List;
import java.util.Map;

/** The smallest topology a SrvVSchema rebuild needs: cells, keyspaces with empty VSchemas, one served build. */
final class CellsAndKeyspaces {
  private CellsAndKeyspaces() {}

  static void create(TopologyStore store, List<String> cells, List<String> keyspaces) {
    for (String cell : cells) {
      store.create(store.keys().cellInfo(cell), new CellInfo("127.0.0.1:2379", "/vitess/" + cell));
    }
    for (String ks : keyspaces) {
      store.create(store.keys().keyspace(ks), Keyspace.normal());
      store.create(store.keys().vschema(ks), new VSchema(false, Map.of(), Map.of()));
    }
    new SrvVSchemaBuilder(store).rebuild(List.of(), TopologyStore.UNLOCKED);
  }
}
