package io.pointsman.engine.topo.model;

import java.util.List;

/** vschema.ShardRoutingRules. */
public record ShardRoutingRules(List<ShardRoutingRule> rules) {
  public static final ShardRoutingRules EMPTY = new ShardRoutingRules(List.of());

  public ShardRoutingRules {
    rules = rules == null ? List.of() : List.copyOf(rules);
  }
}
