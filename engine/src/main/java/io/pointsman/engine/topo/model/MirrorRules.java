package io.pointsman.engine.topo.model;

import java.util.List;

/** vschema.MirrorRules, the global {@code MirrorRules} record (Vitess 24's traffic mirroring). */
public record MirrorRules(List<MirrorRule> rules) {
  public static final MirrorRules EMPTY = new MirrorRules(List.of());

  public MirrorRules {
    rules = rules == null ? List.of() : List.copyOf(rules);
  }
}
