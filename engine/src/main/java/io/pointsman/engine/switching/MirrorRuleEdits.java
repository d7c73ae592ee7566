package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import java.util.ArrayList;
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
        String from = MirrorRule.fromTable(sourceKeyspace, t, type);
        String to = MirrorRule.toTable(targetKeyspace, t);
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

  /**
   * vtctldclient MirrorTraffic's edit: for each table and type, {@code source.t[@type]} mirrors
   * {@code percent} of its queries to {@code target.t} (a rule added, or its percent replaced), or,
   * with {@code percent} 0, that one rule goes. As Vitess, refused (ALREADY_EXISTS) when some of
   * the workflow's rules for these types exist and some do not: a partial set is not one this
   * action made, and completing or changing it would hide that.
   */
  static MirrorRules mirror(MirrorRules rules, List<String> tables, List<TabletType> types, float percent,
      String sourceKeyspace, String targetKeyspace) {
    List<MirrorRule> edited = new ArrayList<>(rules.rules());
    int existing = 0;
    for (String t : tables) {
      for (TabletType type : types) {
        String from = MirrorRule.fromTable(sourceKeyspace, t, type);
        String to = MirrorRule.toTable(targetKeyspace, t);
        int at = indexOf(edited, from, to);
        if (at >= 0) {
          existing++;
          if (percent == 0) {
            edited.remove(at);
          } else {
            edited.set(at, new MirrorRule(from, to, percent));
          }
        } else if (percent != 0) {
          edited.add(new MirrorRule(from, to, percent));
        }
      }
    }
    int expected = tables.size() * types.size();
    if (existing > 0 && existing != expected) {
      throw PointsmanException.alreadyExists("wrong number of pre-existing mirror rules: " + existing + " of the "
          + expected + " rules from " + sourceKeyspace + " to " + targetKeyspace + " for tablet types " + types
          + " exist; Vitess and pointsman change such rules only all together. Nothing was changed");
    }
    return new MirrorRules(edited);
  }

  private static int indexOf(List<MirrorRule> rules, String from, String to) {
    for (int i = 0; i < rules.size(); i++) {
      if (from.equals(rules.get(i).fromTable()) && to.equals(rules.get(i).toTable())) {
        return i;
      }
    }
    return -1;
  }
}
