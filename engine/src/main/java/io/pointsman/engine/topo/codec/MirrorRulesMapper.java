package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import vschema.Vschema;

/** vschema.MirrorRules; rules are matched by from_table and to_table. */
final class MirrorRulesMapper implements RecordMapper<MirrorRules, Vschema.MirrorRules> {
  @Override
  public Vschema.MirrorRules defaultInstance() {
    return Vschema.MirrorRules.getDefaultInstance();
  }

  @Override
  public MirrorRules fromProto(Vschema.MirrorRules m) {
    return new MirrorRules(m.getRulesList().stream().map(r -> new MirrorRule(
        nullIfEmpty(r.getFromTable()), nullIfEmpty(r.getToTable()), r.getPercent())).toList());
  }

  @Override
  public Vschema.MirrorRules toProto(MirrorRules v, Vschema.MirrorRules base) {
    return base.toBuilder().clearRules().addAllRules(Merge.byKey(base.getRulesList(),
        r -> r.getFromTable() + " " + r.getToTable(), v.rules(),
        r -> emptyIfNull(r.fromTable()) + " " + emptyIfNull(r.toTable()),
        (r, b) -> b.toBuilder().setFromTable(emptyIfNull(r.fromTable())).setToTable(emptyIfNull(r.toTable()))
            .setPercent(r.percent()).build(),
        Vschema.MirrorRule.getDefaultInstance())).build();
  }
}
