package io.pointsman.engine.topo.model;

/** vschema.ShardRoutingRule (partial MoveTables): {@code <from_keyspace>.<shard>} served by to_keyspace. */
public record ShardRoutingRule(String fromKeyspace, String toKeyspace, String shard) {}
