package io.pointsman.engine.topo.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** vschema.RoutingRules, with a map view for the read-modify-write the switcher does. */
public record RoutingRules(List<RoutingRule> rules) {
  public static final RoutingRules EMPTY = new RoutingRules(List.of());

  public RoutingRules {
    rules = rules == null ? List.of() : List.copyOf(rules);
  }

  /** from_table to to_tables, in record order. */
  public Map<String, List<String>> asMap() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    rules.forEach(r -> m.put(r.fromTable(), r.toTables()));
    return m;
  }

  /**
   * The to_tables of {@code fromTable} as {@link #asMap} gives them (the last rule from it wins);
   * null when there is none. A scan: for one lookup, cheaper than the map of thousands of rules.
   */
  public List<String> targetsOf(String fromTable) {
    List<String> to = null;
    for (RoutingRule r : rules) {
      if (r.fromTable().equals(fromTable)) {
        to = r.toTables();
      }
    }
    return to;
  }

  public static RoutingRules fromMap(Map<String, List<String>> map) {
    List<RoutingRule> list = new ArrayList<>();
    map.forEach((from, to) -> list.add(new RoutingRule(from, to)));
    return new RoutingRules(list);
  }
}
