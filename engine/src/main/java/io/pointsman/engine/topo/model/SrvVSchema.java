package io.pointsman.engine.topo.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * vschema.SrvVSchema: the per-cell serving VSchema, rebuilt from the global records (the keyspaces'
 * VSchemas and the routing, shard routing, keyspace routing and mirror rules).
 */
public record SrvVSchema(Map<String, VSchema> keyspaces, RoutingRules routingRules,
    ShardRoutingRules shardRoutingRules, KeyspaceRoutingRules keyspaceRoutingRules, MirrorRules mirrorRules) {
  public SrvVSchema {
    keyspaces = keyspaces == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(keyspaces));
    routingRules = routingRules == null ? RoutingRules.EMPTY : routingRules;
    shardRoutingRules = shardRoutingRules == null ? ShardRoutingRules.EMPTY : shardRoutingRules;
    keyspaceRoutingRules = keyspaceRoutingRules == null ? KeyspaceRoutingRules.EMPTY : keyspaceRoutingRules;
    mirrorRules = mirrorRules == null ? MirrorRules.EMPTY : mirrorRules;
  }

  /** Without keyspace routing rules and mirror rules. */
  public SrvVSchema(Map<String, VSchema> keyspaces, RoutingRules routingRules, ShardRoutingRules shardRoutingRules) {
    this(keyspaces, routingRules, shardRoutingRules, null, null);
  }

  public SrvVSchema withRoutingRules(RoutingRules rules) {
    return new SrvVSchema(keyspaces, rules, shardRoutingRules, keyspaceRoutingRules, mirrorRules);
  }
}
