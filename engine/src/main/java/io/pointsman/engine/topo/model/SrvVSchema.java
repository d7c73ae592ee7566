package io.pointsman.engine.topo.model;

import java.util.Map;
import java.util.TreeMap;

/** vschema.SrvVSchema: the per-cell serving VSchema, rebuilt from the global records. */
public record SrvVSchema(
    Map<String, VSchema> keyspaces, RoutingRules routingRules, ShardRoutingRules shardRoutingRules) {
  public SrvVSchema {
    keyspaces = keyspaces == null ? Map.of() : new TreeMap<>(keyspaces);
    routingRules = routingRules == null ? RoutingRules.EMPTY : routingRules;
    shardRoutingRules = shardRoutingRules == null ? ShardRoutingRules.EMPTY : shardRoutingRules;
  }
}
