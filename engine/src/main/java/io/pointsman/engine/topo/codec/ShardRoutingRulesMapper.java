package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.ShardRoutingRule;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import vschema.Vschema;

/** vschema.ShardRoutingRules; rules are matched by from_keyspace and shard. */
final class ShardRoutingRulesMapper implements RecordMapper<ShardRoutingRules, Vschema.ShardRoutingRules> {
  @Override
  public Vschema.ShardRoutingRules defaultInstance() {
    return Vschema.ShardRoutingRules.getDefaultInstance();
  }

  @Override
  public ShardRoutingRules fromProto(Vschema.ShardRoutingRules m) {
    return new ShardRoutingRules(m.getRulesList().stream().map(r -> new ShardRoutingRule(
        nullIfEmpty(r.getFromKeyspace()), nullIfEmpty(r.getToKeyspace()), nullIfEmpty(r.getShard()))).toList());
  }

  @Override
  public Vschema.ShardRoutingRules toProto(ShardRoutingRules v, Vschema.ShardRoutingRules base) {
    return base.toBuilder().clearRules().addAllRules(Merge.byKey(base.getRulesList(),
        r -> r.getFromKeyspace() + "." + r.getShard(), v.rules(),
        r -> emptyIfNull(r.fromKeyspace()) + "." + emptyIfNull(r.shard()),
        (r, b) -> b.toBuilder().setFromKeyspace(emptyIfNull(r.fromKeyspace()))
            .setToKeyspace(emptyIfNull(r.toKeyspace())).setShard(emptyIfNull(r.shard())).build(),
        Vschema.ShardRoutingRule.getDefaultInstance())).build();
  }
}
