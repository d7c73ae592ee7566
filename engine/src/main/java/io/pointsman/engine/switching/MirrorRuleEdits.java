package io.pointsman.engine.switching;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Pure edits of the global mirror rules that a switch makes, as Vitess makes them. */
final class MirrorRuleEdits {
  private MirrorRuleEdits() {}

  /**
   * A switch of the tablet types stops mirroring the moved tables: for each table and type, when
   * {@code source.t[@type]} mirrors to {@code target.t}, every mirror rule of {@code source.t[@type]}
   * goes (Vitess drops the source table's whole entry, whatever else it mirrors to).
   */
  static MirrorRules removeSwitched(MirrorRules rules, List<String> tables, List<TabletType> types,
      String sourceKeyspace, String targetKeyspace) {
    Set<String> dropped = new HashSet<>();
    for (String t : tables) {
      for (TabletType type : types) {
        String from = sourceKeyspace + "." + t + type.ruleSuffix();
        String to = targetKeyspace + "." + t;
        if (rules.rules().stream().anyMatch(r -> from.equals(r.fromTable()) && to.equals(r.toTable()))) {
          dropped.add(from);
        }
      }
    }
    if (dropped.isEmpty()) {
      return rules;
    }
    List<MirrorRule> kept = rules.rules().stream().filter(r -> !dropped.contains(r.fromTable())).toList();
    return new MirrorRules(kept);
  }
}
