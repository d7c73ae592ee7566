package io.pointsman.engine.topo.codec;

import com.google.protobuf.Message;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.CellsAlias;
import io.pointsman.engine.topo.model.Keyspace;
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
  private static final Map<Class<?>, RecordMapper<?, ?>> MAPPERS = Map.of(
      Keyspace.class, new KeyspaceMapper(),
      Shard.class, new ShardMapper(),
      VSchema.class, new VSchemaMapper(),
      RoutingRules.class, new RoutingRulesMapper(),
      ShardRoutingRules.class, new ShardRoutingRulesMapper(),
      CellInfo.class, new CellInfoMapper(),
      CellsAlias.class, new CellsAliasMapper(),
      SrvKeyspace.class, new SrvKeyspaceMapper(),
      SrvVSchema.class, new SrvVSchemaMapper(),
      Tablet.class, new TabletMapper());

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
