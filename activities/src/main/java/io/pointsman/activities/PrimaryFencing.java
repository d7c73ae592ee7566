package io.pointsman.activities;

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
 * primary say nothing about the new one. So a step names a shard only through here, bound to its
 * planned primary, and the port that resolves the primary refuses another before changing anything
 * there; the switch then undoes what it did (before the journal) or plans again on the new
 * primaries (after). The check is on the read that gives the change its address, so a promotion
 * after that read and before the statement is still not excluded; the write barrier, replicated to
 * every replica, covers that window.
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
   * The shard {@code keyspace/shard}, bound to the primary the switch planned with (to any, when it
   * planned none): the port that resolves the primary for a change checks the term on the same read
   * of the Shard record ({@link ShardRef#checkPrimary}), so a primary that changed is refused before
   * anything is changed on it, and none can slip in between the check and the change's address.
   */
  ShardRef bind(MigrationInfo info, String keyspace, String shard) {
    ShardRef ref = new ShardRef(keyspace, shard);
    Optional<PrimaryTerm> planned = info.plannedPrimary(keyspace, shard);
    return planned.isEmpty() ? ref : ref.expecting(planned.get());
  }
}
