package io.pointsman.engine.primary;

import io.pointsman.api.names.Names;

/**
 * The shard whose primary a port call goes to. Ports resolve the primary on every call: a reparent
 * may move it at any time, and a traffic switch does not lock shards against that.
 */
public record ShardRef(String keyspace, String shard) {
  public ShardRef {
    Names.keyspace(keyspace);
    Names.shard(shard);
  }

  @Override
  public String toString() {
    return keyspace + "/" + shard;
  }
}
