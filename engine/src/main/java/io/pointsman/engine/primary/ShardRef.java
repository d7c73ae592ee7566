package io.pointsman.engine.primary;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.names.Names;
import java.util.Objects;

/**
 * The shard whose primary a port call goes to. Ports resolve the primary on every call: a reparent
 * may move it at any time. A write switch plans its primaries under the shard locks and binds every
 * later change to them ({@link #expecting}): the port that resolves the primary then refuses one
 * whose term differs, from the same read of the Shard record that names it, so no other primary can
 * come between the check and the statement's address.
 *
 * @param expectedPrimary the primary the caller planned with; null for any
 */
public record ShardRef(String keyspace, String shard, PrimaryTerm expectedPrimary) {
  public ShardRef {
    Names.keyspace(keyspace);
    Names.shard(shard);
  }

  public ShardRef(String keyspace, String shard) {
    this(keyspace, shard, null);
  }

  /** This shard, with its port calls refused unless its primary is still {@code planned}. */
  public ShardRef expecting(PrimaryTerm planned) {
    return new ShardRef(keyspace, shard, Objects.requireNonNull(planned, "planned"));
  }

  /**
   * Refuses {@code now}, the primary a port just read from the Shard record, when it is not the
   * one this ref expects.
   *
   * @throws PointsmanException FAILED_PRECONDITION naming the shard and both primaries
   */
  public void checkPrimary(PrimaryTerm now) {
    if (expectedPrimary != null && !expectedPrimary.equals(now)) {
      throw PointsmanException.failedPrecondition("the primary of " + this + " changed during the switch: planned "
          + expectedPrimary + ", now " + now + " (a reparent, or a failover tool that takes no Vitess lock); nothing"
          + " was changed on the new primary");
    }
  }

  /** The same shard whatever primary each expects: the expectation is how a call resolves it, not which shard. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ShardRef other && keyspace.equals(other.keyspace) && shard.equals(other.shard);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keyspace, shard);
  }

  @Override
  public String toString() {
    return keyspace + "/" + shard;
  }
}
