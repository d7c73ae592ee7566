package io.pointsman.activities;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.engine.mysql.PrimaryResolver;
import io.pointsman.engine.primary.ShardRef;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Binds a write switch's changes on MySQL and tablets to the primaries it planned with. The shard
 * locks keep Vitess's own reparents out of the write window, but a failover tool that takes no
 * Vitess lock can still promote another server: positions gathered and a barrier raised on the old
 * primary say nothing about the new one. So a step resolves a shard's primary only through here,
 * and one that finds a primary other than the planned one refuses before changing anything there;
 * the switch then undoes what it did (before the journal) or plans again on the new primaries
 * (after). The check runs right before each change, so a promotion between the check and the
 * statement is not excluded; the write barrier, replicated to every replica, covers that window.
 */
final class PrimaryFencing {
  private final PrimaryResolver primaries;

  PrimaryFencing(PrimaryResolver primaries) {
    this.primaries = Objects.requireNonNull(primaries, "primaries");
  }

  /** The primary of every source and target shard now, keyed {@code keyspace/shard}, in shard order. */
  Map<String, PrimaryTerm> plan(MigrationInfo info) {
    Map<String, PrimaryTerm> planned = new LinkedHashMap<>();
    info.sourceShards().forEach(s ->
        planned.put(info.sourceKeyspace() + "/" + s, primaries.term(info.sourceKeyspace(), s)));
    info.targetShards().forEach(s ->
        planned.put(info.targetKeyspace() + "/" + s, primaries.term(info.targetKeyspace(), s)));
    return planned;
  }

  /**
   * The shard {@code keyspace/shard}, once its primary is checked to be the one the switch planned
   * with (any, when it planned none). The ports resolve the primary again for the change itself.
   *
   * @throws PointsmanException FAILED_PRECONDITION naming the shard and both primaries when it changed
   */
  ShardRef check(MigrationInfo info, String keyspace, String shard) {
    ShardRef ref = new ShardRef(keyspace, shard);
    Optional<PrimaryTerm> planned = info.plannedPrimary(keyspace, shard);
    if (planned.isEmpty()) {
      return ref;
    }
    PrimaryTerm now = primaries.term(keyspace, shard);
    if (!now.equals(planned.get())) {
      throw PointsmanException.failedPrecondition("the primary of " + keyspace + "/" + shard
          + " changed during the switch: planned " + planned.get() + ", now " + now
          + " (a reparent, or a failover tool that takes no Vitess lock); nothing was changed on the new primary");
    }
    return ref;
  }
}
