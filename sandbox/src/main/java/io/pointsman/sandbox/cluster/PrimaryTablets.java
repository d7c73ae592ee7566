package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Finds shards and their primaries the way Vitess does: Shard {@code primary_alias}, then the
 * Tablet record for MySQL's address and database, and the Keyspace for the sidecar database.
 */
public final class PrimaryTablets {
  private final TopologyStore store;

  public PrimaryTablets(TopologyStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** The shard records of a keyspace, by name in key-range order. */
  public Map<String, Shard> shards(String keyspace) {
    TopoKeys keys = store.keys();
    Map<String, Shard> shards = new LinkedHashMap<>();
    store.listShards(keyspace).stream()
        .map(name -> Map.entry(name, store.getRequired(keys.shard(keyspace, name)).value()))
        .sorted((a, b) -> SrvKeyspaceBuilder.compare(a.getValue().keyRange(), b.getValue().keyRange()))
        .forEach(e -> shards.put(e.getKey(), e.getValue()));
    return shards;
  }

  /** The shards whose primary serves (Vitess's GetServingShards), in key-range order. */
  public Map<String, Shard> servingShards(String keyspace) {
    Map<String, Shard> serving = new LinkedHashMap<>();
    shards(keyspace).forEach((name, shard) -> {
      if (shard.isPrimaryServing()) {
        serving.put(name, shard);
      }
    });
    if (serving.isEmpty()) {
      throw PointsmanException.failedPrecondition("keyspace " + keyspace + " has no serving shards");
    }
    return serving;
  }

  /**
   * The primary of a shard.
   *
   * @throws PointsmanException NOT_FOUND for a missing keyspace, shard or tablet record;
   *     FAILED_PRECONDITION when the shard has no primary
   */
  public PrimaryTablet primary(String keyspace, String shard) {
    TopoKeys keys = store.keys();
    Keyspace ks = store.getRequired(keys.keyspace(keyspace)).value();
    Shard s = store.get(keys.shard(keyspace, shard)).map(Versioned::value).orElseThrow(() ->
        PointsmanException.notFound("shard " + keyspace + "/" + shard + " does not exist"));
    if (s.primaryAlias() == null) {
      throw PointsmanException.failedPrecondition("shard " + keyspace + "/" + shard + " has no primary");
    }
    Tablet t = store.getRequired(keys.tablet(s.primaryAlias())).value();
    return new PrimaryTablet(keyspace, shard, s.keyRange(), s.primaryAlias(), t.mysqlHostname(), t.mysqlPort(),
        t.dbName(), ks.sidecarDb());
  }
}
