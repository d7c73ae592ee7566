package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** vschema.MirrorRules, the global {@code MirrorRules} record (Vitess 24's traffic mirroring). */
public record MirrorRules(List<MirrorRule> rules) {
  public static final MirrorRules EMPTY = new MirrorRules(List.of());
  private static final List<TabletType> MIRRORED_TYPES = List.of(TabletType.PRIMARY, TabletType.REPLICA,
      TabletType.RDONLY);

  public MirrorRules {
    rules = rules == null ? List.of() : List.copyOf(rules);
  }

  /**
   * Whether any of {@code tables} is mirrored from {@code sourceKeyspace} to {@code targetKeyspace}
   * for any of {@code types}: a rule from {@code source.t[@type]} to {@code target.t}, as Vitess's
   * workflow state reads them.
   */
  public boolean mirrors(List<String> tables, List<TabletType> types, String sourceKeyspace, String targetKeyspace) {
    Set<String> pairs = new HashSet<>();
    for (String t : tables) {
      for (TabletType type : types) {
        pairs.add(MirrorRule.fromTable(sourceKeyspace, t, type) + " " + MirrorRule.toTable(targetKeyspace, t));
      }
    }
    return rules.stream().anyMatch(r -> pairs.contains(r.fromTable() + " " + r.toTable()));
  }

  /**
   * As {@link #mirrors} for every tablet type: what Vitess's switch, after removing mirror rules,
   * sets the target primaries' allow_reads from.
   */
  public boolean mirrorsAny(List<String> tables, String sourceKeyspace, String targetKeyspace) {
    return mirrors(tables, MIRRORED_TYPES, sourceKeyspace, targetKeyspace);
  }
}
