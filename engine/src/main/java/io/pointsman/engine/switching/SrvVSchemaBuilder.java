package io.pointsman.engine.switching;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.topo.RecordWrite;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Vitess's RebuildSrvVSchema: the serving VSchema of a cell is the keyspaces' VSchemas plus the
 * global routing rules, rebuilt in the cells given (which is how per-cell read switching works:
 * the rules are global, only the rebuilt cells pick them up). Unlike Vitess it never writes blind:
 * each cell's record is replaced only at the revision it was read at, and only under the locks.
 */
public final class SrvVSchemaBuilder {
  private final TopologyStore store;

  public SrvVSchemaBuilder(TopologyStore store) {
    this.store = store;
  }

  /** The SrvVSchema that the global records describe now. */
  public SrvVSchema build() {
    Map<String, VSchema> keyspaces = new TreeMap<>();
    for (String ks : store.listKeyspaces()) {
      keyspaces.put(ks, store.get(store.keys().vschema(ks)).map(Versioned::value).orElse(new VSchema(false, null, null)));
    }
    RoutingRules rules = store.get(store.keys().routingRules()).map(Versioned::value).orElse(RoutingRules.EMPTY);
    ShardRoutingRules shardRules =
        store.get(store.keys().shardRoutingRules()).map(Versioned::value).orElse(ShardRoutingRules.EMPTY);
    return new SrvVSchema(keyspaces, rules, shardRules);
  }

  /** Rebuilds the given cells (all cells when empty), fenced by the locks. */
  public void rebuild(List<String> cells, LockSet locks) {
    List<String> targets = cells.isEmpty() ? store.listCells() : cells;
    SrvVSchema srv = build();
    List<RecordWrite<?>> writes = new ArrayList<>();
    for (String cell : targets) {
      Optional<Versioned<SrvVSchema>> current = store.get(store.keys().srvVSchema(cell));
      if (current.isPresent() && current.get().value().equals(srv)) {
        continue;
      }
      writes.add(current.map(v -> RecordWrite.replace(v, srv))
          .orElseGet(() -> RecordWrite.create(store.keys().srvVSchema(cell), srv)));
    }
    if (!writes.isEmpty()) {
      store.commit(writes, locks);
    }
  }
}
