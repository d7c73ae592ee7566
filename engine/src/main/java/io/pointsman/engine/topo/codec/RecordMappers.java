package io.pointsman.engine.topo.codec;

import com.google.protobuf.Message;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.CellsAlias;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspaceRoutingRules;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import java.util.Map;

/** The mapper of each record type the topology store keeps (see TopoKeys). */
public final class RecordMappers {
  private static final Map<Class<?>, RecordMapper<?, ?>> MAPPERS = Map.ofEntries(
      Map.entry(Keyspace.class, new KeyspaceMapper()),
      Map.entry(Shard.class, new ShardMapper()),
      Map.entry(VSchema.class, new VSchemaMapper()),
      Map.entry(RoutingRules.class, new RoutingRulesMapper()),
      Map.entry(ShardRoutingRules.class, new ShardRoutingRulesMapper()),
      Map.entry(KeyspaceRoutingRules.class, new KeyspaceRoutingRulesMapper()),
      Map.entry(MirrorRules.class, new MirrorRulesMapper()),
      Map.entry(CellInfo.class, new CellInfoMapper()),
      Map.entry(CellsAlias.class, new CellsAliasMapper()),
      Map.entry(SrvKeyspace.class, new SrvKeyspaceMapper()),
      Map.entry(SrvVSchema.class, new SrvVSchemaMapper()),
      Map.entry(Tablet.class, new TabletMapper()));

  private RecordMappers() {}

  @SuppressWarnings("unchecked")
  public static <T> RecordMapper<T, Message> forType(Class<T> type) {
    RecordMapper<?, ?> m = MAPPERS.get(type);
    if (m == null) {
      throw new IllegalArgumentException(type.getName() + " is not a topology record type");
    }
    return (RecordMapper<T, Message>) m;
  }
}
