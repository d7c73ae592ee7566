package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.TabletEndpoint;
import io.pointsman.engine.topo.ShardPrimary;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds a shard's primary tablet as vtctld does: Shard {@code primary_alias} → Tablet record →
 * {@code hostname} and {@code port_map["grpc"]}. Reads the topology on every call, since a reparent
 * may move the primary at any time (the direct-MySQL counterpart is
 * {@link io.pointsman.engine.mysql.PrimaryResolver}).
 */
public final class TabletPrimaries {
  /** The port_map key vttablet registers its gRPC port under. */
  public static final String GRPC_PORT = "grpc";

  private final TopologyStore topo;

  public TabletPrimaries(TopologyStore topo) {
    this.topo = Objects.requireNonNull(topo, "topo");
  }

  /**
   * The primary of the shard.
   *
   * @throws PointsmanException NOT_FOUND when the shard or tablet record is missing; FAILED_PRECONDITION
   *     when the shard has no primary, not the one the ref expects ({@link ShardRef#checkPrimary}), or
   *     the tablet is not a PRIMARY of that shard or has no gRPC port
   */
  public TabletPrimary resolve(ShardRef shard) {
    // A ref that expects a primary has that tablet's record read beside the Shard record (ShardPrimary).
    ShardPrimary read = ShardPrimary.read(topo, shard.keyspace(), shard.shard(), shard.expectedPrimary());
    Shard s = read.shard();
    if (s.primaryAlias() == null) {
      throw PointsmanException.failedPrecondition("shard " + shard + " has no primary");
    }
    shard.checkPrimary(new PrimaryTerm(s.primaryAlias().toString(), s.primaryTermStartTime()));
    Tablet t = read.primaryTablet(topo);
    if (!shard.keyspace().equals(t.keyspace()) || !shard.shard().equals(t.shard())) {
      throw PointsmanException.failedPrecondition("primary " + s.primaryAlias() + " of " + shard
          + " is recorded as a tablet of " + t.keyspace() + "/" + t.shard());
    }
    if (t.type() != TabletType.PRIMARY) {
      throw PointsmanException.failedPrecondition("primary " + s.primaryAlias() + " of " + shard + " is a "
          + t.type() + " tablet; a reparent may be in progress");
    }
    Integer grpc = t.portMap().get(GRPC_PORT);
    if (grpc == null) {
      throw PointsmanException.failedPrecondition("tablet " + s.primaryAlias() + " of " + shard
          + " has no gRPC port in its record (port_map " + t.portMap() + "); is it a vttablet?");
    }
    return new TabletPrimary(shard, new TabletEndpoint(s.primaryAlias(), t.hostname(), grpc), t.dbName());
  }

  /**
   * Whether the shard's primary record carries a gRPC port, i.e. the tablet adapters can serve it;
   * empty when the shard, its primary or the primary's record is not there.
   */
  public Optional<Boolean> servesGrpc(ShardRef shard) {
    TopoKeys keys = topo.keys();
    return topo.get(keys.shard(shard.keyspace(), shard.shard()))
        .map(v -> v.value().primaryAlias())
        .flatMap(alias -> topo.get(keys.tablet(alias)))
        .map(v -> v.value().portMap().containsKey(GRPC_PORT));
  }
}
