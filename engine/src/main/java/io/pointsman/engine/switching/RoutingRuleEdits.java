package io.pointsman.engine.switching;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.RoutingRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The routing-rule changes of a MoveTables switch, as pure functions of the rules read
 * (docs/vitess-switching.md §3.2, §5 changeRouting and the routing after a switch, §9). Every edit
 * returns the rules unchanged when there is nothing to do, so a step run twice writes once.
 */
public final class RoutingRuleEdits {
  private RoutingRuleEdits() {}

  /** Reads of one tablet type: {@code t@type}, {@code src.t@type} and {@code tgt.t@type} all to {@code toKeyspace.t}. */
  public static RoutingRules switchReads(RoutingRules rules, List<String> tables, TabletType type, String sourceKeyspace,
      String targetKeyspace, String toKeyspace) {
    Map<String, List<String>> m = rules.asMap();
    String suffix = type.ruleSuffix();
    for (String t : tables) {
      List<String> to = List.of(toKeyspace + "." + t);
      m.put(t + suffix, to);
      m.put(sourceKeyspace + "." + t + suffix, to);
      m.put(targetKeyspace + "." + t + suffix, to);
    }
    return RoutingRules.fromMap(m);
  }

  /** Writes: {@code t} and {@code src.t} to {@code tgt.t}, and the rule for {@code tgt.t} removed. */
  public static RoutingRules switchWrites(RoutingRules rules, List<String> tables, String sourceKeyspace,
      String targetKeyspace) {
    Map<String, List<String>> m = rules.asMap();
    for (String t : tables) {
      List<String> to = List.of(targetKeyspace + "." + t);
      m.remove(targetKeyspace + "." + t);
      m.put(t, to);
      m.put(sourceKeyspace + "." + t, to);
    }
    return RoutingRules.fromMap(m);
  }

  /** Complete/Cancel: every one of the nine rules of each table removed. */
  public static RoutingRules delete(RoutingRules rules, List<String> tables, String sourceKeyspace,
      String targetKeyspace) {
    Map<String, List<String>> m = new LinkedHashMap<>(rules.asMap());
    for (String t : tables) {
      for (String suffix : List.of("", "@replica", "@rdonly")) {
        m.remove(t + suffix);
        m.remove(sourceKeyspace + "." + t + suffix);
        m.remove(targetKeyspace + "." + t + suffix);
      }
    }
    return RoutingRules.fromMap(m);
  }

  /** Whether the writes of the workflow are switched: any {@code src.t} routes away from the source. */
  public static boolean writesSwitched(RoutingRules rules, List<String> tables, String sourceKeyspace) {
    Map<String, List<String>> m = rules.asMap();
    for (String t : tables) {
      List<String> to = m.get(sourceKeyspace + "." + t);
      if (to != null && !to.isEmpty() && !to.get(0).startsWith(sourceKeyspace + ".")) {
        return true;
      }
    }
    return false;
  }

  /** Whether reads of a type are switched in rules (a cell's SrvVSchema rules): {@code src.t0@type} routes away. */
  public static boolean readsSwitched(RoutingRules rules, List<String> tables, TabletType type, String sourceKeyspace) {
    if (tables.isEmpty()) {
      return false;
    }
    List<String> to = rules.targetsOf(sourceKeyspace + "." + tables.get(0) + type.ruleSuffix());
    return to != null && !to.isEmpty() && !to.get(0).startsWith(sourceKeyspace + ".");
  }
}
