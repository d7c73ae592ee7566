package io.pointsman.sandbox.cluster;

import io.pointsman.locks.LockSet;
import io.pointsman.topo.TopoKeys;
import io.pointsman.topo.TopologyStore;
import io.pointsman.topo.Versioned;
import io.pointsman.topo.model.RoutingRules;
import io.pointsman.topo.model.ShardRoutingRules;
import io.pointsman.topo.model.SrvVSchema;
import io.pointsman.topo.model.VSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Vitess's RebuildSrvVSchema: the serving VSchema of each cell is recomputed from the global
 * records, every keyspace's VSchema (an empty one for a keyspace without), the RoutingRules and the
 * ShardRoutingRules. Unlike Vitess, which writes SrvVSchema blind, each cell's record is replaced
 * with a guarded read-modify-write, fenced by the given locks.
 */
public final class SrvVSchemaBuilder {
  private static final VSchema EMPTY = new VSchema(false, Map.of(), Map.of());

  private final TopologyStore store;

  public SrvVSchemaBuilder(TopologyStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** The SrvVSchema the global records call for right now. */
  public SrvVSchema build() {
    TopoKeys keys = store.keys();
    Map<String, VSchema> keyspaces = new LinkedHashMap<>();
    for (String ks : store.listKeyspaces()) {
      keyspaces.put(ks, store.get(keys.vschema(ks)).map(Versioned::value).orElse(EMPTY));
    }
    RoutingRules rules = store.get(keys.routingRules()).map(Versioned::value).orElse(RoutingRules.EMPTY);
    ShardRoutingRules shardRules =
        store.get(keys.shardRoutingRules()).map(Versioned::value).orElse(ShardRoutingRules.EMPTY);
    return new SrvVSchema(keyspaces, rules, shardRules);
  }

  /**
   * Rebuilds and writes the SrvVSchema of the given cells (all cells when empty).
   *
   * @return the SrvVSchema written
   */
  public SrvVSchema rebuild(List<String> cells, LockSet locks) {
    SrvVSchema built = build();
    List<String> targets = cells.isEmpty() ? store.listCells() : cells;
    for (String cell : targets) {
      store.upsert(store.keys().srvVSchema(cell), current -> built, locks);
    }
    return built;
  }
}
