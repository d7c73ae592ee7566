package io.pointsman.engine.topo.model;

import java.util.List;

/** vschema.RoutingRule: {@code from_table} (t, ks.t, t@replica, ...) to {@code to_tables} (ks.t). */
public record RoutingRule(String fromTable, List<String> toTables) {
  public RoutingRule {
    toTables = toTables == null ? List.of() : List.copyOf(toTables);
  }
}
