package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.RoutingRule;
import io.pointsman.engine.topo.model.RoutingRules;
import vschema.Vschema;

/**
 * vschema.RoutingRules; rules are matched by from_table. A rule the model holds as its base does
 * is kept as it is: a switch of a thousand tables rewrites two thousand of nine thousand rules.
 */
final class RoutingRulesMapper implements RecordMapper<RoutingRules, Vschema.RoutingRules> {
  @Override
  public Vschema.RoutingRules defaultInstance() {
    return Vschema.RoutingRules.getDefaultInstance();
  }

  @Override
  public RoutingRules fromProto(Vschema.RoutingRules m) {
    return new RoutingRules(m.getRulesList().stream()
        .map(r -> new RoutingRule(nullIfEmpty(r.getFromTable()), r.getToTablesList())).toList());
  }

  @Override
  public Vschema.RoutingRules toProto(RoutingRules v, Vschema.RoutingRules base) {
    return base.toBuilder().clearRules().addAllRules(Merge.byKey(base.getRulesList(),
        Vschema.RoutingRule::getFromTable, v.rules(), r -> emptyIfNull(r.fromTable()),
        (r, b) -> b.getFromTable().equals(emptyIfNull(r.fromTable())) && b.getToTablesList().equals(r.toTables())
            ? b
            : b.toBuilder().setFromTable(emptyIfNull(r.fromTable())).clearToTables().addAllToTables(r.toTables())
                .build(),
        Vschema.RoutingRule.getDefaultInstance())).build();
  }
}
