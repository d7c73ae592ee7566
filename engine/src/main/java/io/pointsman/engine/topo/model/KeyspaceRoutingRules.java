package io.pointsman.engine.topo.model;

import java.util.List;

/**
 * vschema.KeyspaceRoutingRules, the global {@code routing_rules/keyspace/Rules} record (multi-tenant
 * MoveTables). pointsman never changes it; it reads it only to serve it in the SrvVSchema it builds.
 */
public record KeyspaceRoutingRules(List<KeyspaceRoutingRule> rules) {
  public static final KeyspaceRoutingRules EMPTY = new KeyspaceRoutingRules(List.of());

  public KeyspaceRoutingRules {
    rules = rules == null ? List.of() : List.copyOf(rules);
  }
}
