package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.KeyspaceRoutingRule;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import vschema.Vschema;

/** vschema.KeyspaceRoutingRules; rules are matched by from_keyspace. */
final class KeyspaceRoutingRulesMapper implements RecordMapper<KeyspaceRoutingRules, Vschema.KeyspaceRoutingRules> {
  @Override
  public Vschema.KeyspaceRoutingRules defaultInstance() {
    return Vschema.KeyspaceRoutingRules.getDefaultInstance();
  }

  @Override
  public KeyspaceRoutingRules fromProto(Vschema.KeyspaceRoutingRules m) {
    return new KeyspaceRoutingRules(m.getRulesList().stream().map(r -> new KeyspaceRoutingRule(
        nullIfEmpty(r.getFromKeyspace()), nullIfEmpty(r.getToKeyspace()))).toList());
  }

  @Override
  public Vschema.KeyspaceRoutingRules toProto(KeyspaceRoutingRules v, Vschema.KeyspaceRoutingRules base) {
    return base.toBuilder().clearRules().addAllRules(Merge.byKey(base.getRulesList(),
        Vschema.KeyspaceRoutingRule::getFromKeyspace, v.rules(), r -> emptyIfNull(r.fromKeyspace()),
        (r, b) -> b.toBuilder().setFromKeyspace(emptyIfNull(r.fromKeyspace()))
            .setToKeyspace(emptyIfNull(r.toKeyspace())).build(),
        Vschema.KeyspaceRoutingRule.getDefaultInstance())).build();
  }
}
