package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What the runner reads from the topology: shard primaries, where their MySQL listens, VSchemas. */
final class TopologyView {
  private final TopologyStore topo;

  TopologyView(TopologyStore topo) {
    this.topo = topo;
  }

  /** The primary of a source shard: its MySQL and database. A shard without a primary is retried, not fatal. */
  SourceEndpoint source(String keyspace, String shard) {
    Shard s = topo.getRequired(topo.keys().shard(keyspace, shard)).value();
    if (s.primaryAlias() == null) {
      throw new PointsmanException(ErrorCode.UNAVAILABLE, "source shard " + keyspace + "/" + shard + " has no primary");
    }
    Tablet t = topo.getRequired(topo.keys().tablet(s.primaryAlias())).value();
    return new SourceEndpoint(host(t), t.mysqlPort(), t.dbName());
  }

  Optional<VSchema> vschema(String keyspace) {
    return topo.get(topo.keys().vschema(keyspace)).map(Versioned::value);
  }

  /** Every shard primary in the topology with its keyspace's sidecar database, in keyspace and shard order. */
  List<TargetPrimary> allPrimaries() {
    Set<TargetPrimary> out = new LinkedHashSet<>();
    for (String ks : topo.listKeyspaces()) {
      String sidecar = topo.get(topo.keys().keyspace(ks)).map(v -> v.value().sidecarDb()).orElse(Keyspace.DEFAULT_SIDECAR_DB);
      for (String shard : topo.listShards(ks)) {
        Optional<Shard> s = topo.get(topo.keys().shard(ks, shard)).map(Versioned::value);
        if (s.isEmpty() || s.get().primaryAlias() == null) {
          continue;
        }
        topo.get(topo.keys().tablet(s.get().primaryAlias()))
            .ifPresent(t -> out.add(new TargetPrimary(host(t.value()), t.value().mysqlPort(), sidecar)));
      }
    }
    return new ArrayList<>(out);
  }

  private static String host(Tablet t) {
    return t.mysqlHostname() != null && !t.mysqlHostname().isEmpty() ? t.mysqlHostname() : t.hostname();
  }
}
