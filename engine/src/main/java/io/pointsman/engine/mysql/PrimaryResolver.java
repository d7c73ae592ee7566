package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.topo.ShardPrimary;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.util.Objects;

/**
 * Finds a shard's primary MySQL the way Vitess does: Shard {@code primary_alias} → Tablet record
 * → {@code mysql_hostname}/{@code mysql_port} and database name; the sidecar database comes from
 * the Keyspace record. Reads the topology on every call: a reparent may move the primary at any
 * time (the write window's shard locks keep Vitess's own out, not a failover tool that takes none).
 */
public final class PrimaryResolver {
  private final TopologyStore topo;

  public PrimaryResolver(TopologyStore topo) {
    this.topo = Objects.requireNonNull(topo, "topo");
  }

  /**
   * The primary of {@code keyspace/shard}.
   *
   * @throws PointsmanException NOT_FOUND when the keyspace, shard or tablet record is missing;
   *     FAILED_PRECONDITION when the shard has no primary or the tablet record does not describe one
   */
  public PrimaryEndpoint resolve(String keyspace, String shard) {
    return resolveWithTerm(keyspace, shard).endpoint();
  }

  /** The primary of {@code keyspace/shard} and the term the same read of its Shard record names. */
  public record Current(PrimaryEndpoint endpoint, PrimaryTerm term) {}

  /**
   * The primary of {@code keyspace/shard} with its term, from one read of the Shard record, so
   * that the two cannot come from different reparents.
   *
   * @throws PointsmanException as {@link #resolve}
   */
  public Current resolveWithTerm(String keyspace, String shard) {
    return resolveWithTerm(keyspace, shard, null);
  }

  /**
   * {@link #resolveWithTerm(String, String)} for a caller that expects {@code expected} to be the
   * primary (a write switch's planned primary): that tablet's record is read beside the Shard and
   * Keyspace records instead of after the Shard record ({@link ShardPrimary}). Whatever was
   * expected, the primary and term returned are those the Shard record names, for the caller to check.
   *
   * @param expected the primary the caller expects; null to resolve without an expectation
   * @throws PointsmanException as {@link #resolve}
   */
  public Current resolveWithTerm(String keyspace, String shard, PrimaryTerm expected) {
    Names.keyspace(keyspace);
    Names.shard(shard);
    // The Keyspace record beside the Shard read, not before it: every step resolves its shards'
    // primaries again, in the write window too, and a round trip less each adds up there. Keyspace
    // first: when several reads fail, its failure is the one thrown, as when they ran in a row.
    Keyspace[] ks = new Keyspace[1];
    ShardPrimary read = ShardPrimary.read(topo, keyspace, shard, expected,
        () -> ks[0] = topo.getRequired(topo.keys().keyspace(keyspace)).value());
    return endpoint(keyspace, shard, ks[0], primaryTablet(keyspace, shard, read));
  }

  private static Current endpoint(String keyspace, String shard, Keyspace ks, PrimaryTablet p) {
    return new Current(new PrimaryEndpoint(keyspace, shard, p.alias(), p.tablet().mysqlHostname(),
        p.tablet().mysqlPort(), p.tablet().dbName(), ks.sidecarDb()), p.term());
  }

  /** A shard's primary tablet record, its alias and its term, from one read of the Shard record. */
  public record PrimaryTablet(TabletAlias alias, Tablet tablet, PrimaryTerm term) {}

  /**
   * The primary tablet of {@code keyspace/shard} as its records say, whatever serves it (a vttablet's
   * record may have no MySQL address pointsman could use).
   *
   * @throws PointsmanException as {@link #resolve}
   */
  public PrimaryTablet tablet(String keyspace, String shard) {
    Names.keyspace(keyspace);
    Names.shard(shard);
    return primaryTablet(keyspace, shard, ShardPrimary.read(topo, keyspace, shard, null));
  }

  private PrimaryTablet primaryTablet(String keyspace, String shard, ShardPrimary read) {
    Shard s = read.shard();
    if (s.primaryAlias() == null) {
      throw PointsmanException.failedPrecondition("shard " + keyspace + "/" + shard + " has no primary");
    }
    return primaryTablet(keyspace, shard, s, read.primaryTablet(topo));
  }

  /** The primary {@code s} names, given its tablet record: refused when the record does not describe it. */
  private static PrimaryTablet primaryTablet(String keyspace, String shard, Shard s, Tablet tablet) {
    if (!keyspace.equals(tablet.keyspace()) || !shard.equals(tablet.shard())) {
      throw PointsmanException.failedPrecondition("primary " + s.primaryAlias() + " of " + keyspace + "/" + shard
          + " is recorded as a tablet of " + Shown.text(tablet.keyspace()) + "/" + Shown.text(tablet.shard()));
    }
    if (tablet.type() != null && tablet.type() != TabletType.PRIMARY) {
      // A reparent in progress: the shard record points at a tablet that is not (yet) primary.
      throw PointsmanException.failedPrecondition("primary " + s.primaryAlias() + " of " + keyspace + "/" + shard
          + " is a " + tablet.type() + " tablet; a reparent may be in progress");
    }
    return new PrimaryTablet(s.primaryAlias(), tablet,
        new PrimaryTerm(s.primaryAlias().toString(), s.primaryTermStartTime()));
  }

  /**
   * The primary the Shard record of {@code keyspace/shard} names now, with its term start.
   *
   * @throws PointsmanException NOT_FOUND when the shard is missing; FAILED_PRECONDITION when it has no primary
   */
  public PrimaryTerm term(String keyspace, String shard) {
    Names.keyspace(keyspace);
    Names.shard(shard);
    Shard s = topo.getRequired(topo.keys().shard(keyspace, shard)).value();
    if (s.primaryAlias() == null) {
      throw PointsmanException.failedPrecondition("shard " + keyspace + "/" + shard + " has no primary");
    }
    return new PrimaryTerm(s.primaryAlias().toString(), s.primaryTermStartTime());
  }
}
