package io.pointsman.engine.primary.tablet;

import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.TabletEndpoint;

/**
 * A shard's primary tablet as the topology describes it now.
 *
 * @param shard the shard it is primary of
 * @param endpoint where its tablet manager listens
 * @param dbName the database its streams write to ({@code vt_<keyspace>} unless overridden)
 */
public record TabletPrimary(ShardRef shard, TabletEndpoint endpoint, String dbName) {
  @Override
  public String toString() {
    return "primary " + endpoint + " of " + shard;
  }
}
