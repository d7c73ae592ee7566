package io.pointsman.engine.topo.codec;

import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import vschema.Vschema;

/**
 * vschema.SrvVSchema. Each keyspace is written over the base's entry of that name (as
 * {@link VSchemaMapper} does), and each set of rules over the base's.
 */
final class SrvVSchemaMapper implements RecordMapper<SrvVSchema, Vschema.SrvVSchema> {
  private final VSchemaMapper keyspaces = new VSchemaMapper();
  private final RoutingRulesMapper routingRules = new RoutingRulesMapper();
  private final ShardRoutingRulesMapper shardRoutingRules = new ShardRoutingRulesMapper();
  private final KeyspaceRoutingRulesMapper keyspaceRoutingRules = new KeyspaceRoutingRulesMapper();
  private final MirrorRulesMapper mirrorRules = new MirrorRulesMapper();

  @Override
  public Vschema.SrvVSchema defaultInstance() {
    return Vschema.SrvVSchema.getDefaultInstance();
  }

  @Override
  public SrvVSchema fromProto(Vschema.SrvVSchema m) {
    Map<String, VSchema> ks = new LinkedHashMap<>();
    m.getKeyspacesMap().forEach((name, k) -> ks.put(name, keyspaces.fromProto(k)));
    return new SrvVSchema(ks, routingRules.fromProto(m.getRoutingRules()),
        shardRoutingRules.fromProto(m.getShardRoutingRules()),
        keyspaceRoutingRules.fromProto(m.getKeyspaceRoutingRules()), mirrorRules.fromProto(m.getMirrorRules()));
  }

  @Override
  public Vschema.SrvVSchema toProto(SrvVSchema v, Vschema.SrvVSchema base) {
    return toProto(v, base, null);
  }

  /**
   * A switch changes the rules of a cell's SrvVSchema and not its keyspaces, which at a thousand
   * tables are most of its bytes: when they are as {@code base} holds them, its keyspace entries
   * are kept instead of each being written over itself again.
   */
  @Override
  public Vschema.SrvVSchema toProto(SrvVSchema v, Vschema.SrvVSchema base, SrvVSchema baseValue) {
    return toProto(v, base, baseValue, new EncodedValues());
  }

  /**
   * The routing rules served are the message of the global record when the same commit saves
   * those very rules (a rebuild that edits them), as Vitess's rebuild serves the record it read;
   * otherwise they are written over the cell's previous copy.
   */
  @Override
  public Vschema.SrvVSchema toProto(SrvVSchema v, Vschema.SrvVSchema base, SrvVSchema baseValue,
      EncodedValues encoded) {
    Vschema.SrvVSchema.Builder b = base.toBuilder();
    if (baseValue == null || !baseValue.keyspaces().equals(v.keyspaces())) {
      b.clearKeyspaces().putAllKeyspaces(Merge.byName(base.getKeyspacesMap(), v.keyspaces(),
          keyspaces::toProto, Vschema.Keyspace.getDefaultInstance()));
    }
    Vschema.RoutingRules saved = encoded.messageOf(v.routingRules(), Vschema.RoutingRules.class);
    return b
        .setRoutingRules(saved != null ? saved : routingRules.toProto(v.routingRules(), base.getRoutingRules()))
        .setShardRoutingRules(shardRoutingRules.toProto(v.shardRoutingRules(), base.getShardRoutingRules()))
        .setKeyspaceRoutingRules(keyspaceRoutingRules.toProto(v.keyspaceRoutingRules(),
            base.getKeyspaceRoutingRules()))
        .setMirrorRules(mirrorRules.toProto(v.mirrorRules(), base.getMirrorRules()))
        .build();
  }
}
