package io.pointsman.sandbox.cluster;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.switching.SrvVSchemaBuilder;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the sandbox's topology as the Vitess local examples leave it: the cell, the keyspaces and
 * their VSchemas, one shard and one PRIMARY tablet per primary, and each cell's SrvKeyspace and
 * SrvVSchema.
 *
 * <p>Reshard targets get their Shard record here too, not serving, the way Vitess creates the
 * record when the new shards' tablets start (before {@code Reshard create}, which requires them).
 *
 * <p>Re-running it on an existing topology is safe: CellInfo and Tablet records are refreshed (an
 * endpoint or port may have changed); Keyspace, Shard, VSchema, SrvKeyspace and SrvVSchema records
 * that exist are left as they are, since workflows change them and a restart must not undo that.
 */
final class TopologyBootstrap {
  private static final Logger log = LoggerFactory.getLogger(TopologyBootstrap.class);
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;

  private final TopologyStore store;
  private final String cell;
  private final String etcdEndpoint;
  private final SandboxShape shape;

  TopologyBootstrap(TopologyStore store, String cell, String etcdEndpoint, SandboxShape shape) {
    this.store = Objects.requireNonNull(store, "store");
    this.cell = Objects.requireNonNull(cell, "cell");
    this.etcdEndpoint = Objects.requireNonNull(etcdEndpoint, "etcdEndpoint");
    this.shape = Objects.requireNonNull(shape, "shape");
  }

  void bootstrap(List<RunningPrimary> primaries) {
    TopoKeys keys = store.keys();
    CellInfo cellInfo = new CellInfo(etcdEndpoint, keys.paths().cellRoot(cell));
    store.upsert(keys.cellInfo(cell), current -> cellInfo, NO_LOCKS);

    Map<String, List<RunningPrimary>> byKeyspace = primaries.stream()
        .collect(Collectors.groupingBy(p -> p.primary().keyspace()));
    for (var entry : byKeyspace.entrySet()) {
      String keyspace = entry.getKey();
      createIfAbsent(keys.keyspace(keyspace), new Keyspace("NORMAL", null, "none", Keyspace.DEFAULT_SIDECAR_DB));
      vschemaOf(keyspace).ifPresent(v -> createIfAbsent(keys.vschema(keyspace), v));
      for (RunningPrimary p : entry.getValue()) {
        Tablet tablet = new Tablet(p.alias(), RunningPrimary.HOST, Map.of(), keyspace, p.primary().shard(),
            SrvKeyspaceBuilder.orNull(p.primary().keyRange()), TabletType.PRIMARY, null, RunningPrimary.HOST,
            p.port());
        store.upsert(keys.tablet(p.alias()), current -> tablet, NO_LOCKS);
        createIfAbsent(keys.shard(keyspace, p.primary().shard()),
            Shard.of(p.primary().keyRange(), p.alias(), shape.servesInitially(p.primary())));
      }
      createIfAbsent(keys.srvKeyspace(cell, keyspace),
          SrvKeyspaceBuilder.fromShards(new PrimaryTablets(store).shards(keyspace)));
    }
    if (store.get(keys.srvVSchema(cell)).isEmpty()) {
      new SrvVSchemaBuilder(store).rebuild(List.of(cell), NO_LOCKS);
    }
    log.info("topology of cell {} is in place under {} and {}", cell, keys.paths().globalRoot(),
        keys.paths().cellRoot(cell));
  }

  private Optional<VSchema> vschemaOf(String keyspace) {
    switch (keyspace) {
      case SandboxLayout.COMMERCE:
        return Optional.of(shape.commerceVSchema());
      case SandboxLayout.CUSTOMER:
        return Optional.of(shape.customerVSchema());
      default:
        return Optional.empty();
    }
  }

  private <T> void createIfAbsent(RecordKey<T> key, T value) {
    store.upsert(key, current -> current.orElse(value), NO_LOCKS);
  }
}
