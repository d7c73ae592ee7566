package io.pointsman.engine.topo.codec;

import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import vschema.Vschema;

/**
 * vschema.SrvVSchema. Each keyspace is written over the base's entry of that name (as
 * {@link VSchemaMapper} does), and keyspace_routing_rules and mirror_rules, which the model lacks,
 * are kept from the base.
 */
final class SrvVSchemaMapper implements RecordMapper<SrvVSchema, Vschema.SrvVSchema> {
  private final VSchemaMapper keyspaces = new VSchemaMapper();
  private final RoutingRulesMapper routingRules = new RoutingRulesMapper();
  private final ShardRoutingRulesMapper shardRoutingRules = new ShardRoutingRulesMapper();

  @Override
  public Vschema.SrvVSchema defaultInstance() {
    return Vschema.SrvVSchema.getDefaultInstance();
  }

  @Override
  public SrvVSchema fromProto(Vschema.SrvVSchema m) {
    Map<String, VSchema> ks = new LinkedHashMap<>();
    m.getKeyspacesMap().forEach((name, k) -> ks.put(name, keyspaces.fromProto(k)));
    return new SrvVSchema(ks, routingRules.fromProto(m.getRoutingRules()),
        shardRoutingRules.fromProto(m.getShardRoutingRules()));
  }

  @Override
  public Vschema.SrvVSchema toProto(SrvVSchema v, Vschema.SrvVSchema base) {
    return base.toBuilder()
        .clearKeyspaces().putAllKeyspaces(Merge.byName(base.getKeyspacesMap(), v.keyspaces(),
            keyspaces::toProto, Vschema.Keyspace.getDefaultInstance()))
        .setRoutingRules(routingRules.toProto(v.routingRules(), base.getRoutingRules()))
        .setShardRoutingRules(shardRoutingRules.toProto(v.shardRoutingRules(), base.getShardRoutingRules()))
        .build();
  }
}
