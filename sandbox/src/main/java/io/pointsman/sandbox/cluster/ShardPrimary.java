package io.pointsman.sandbox.cluster;

import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;

/**
 * One shard primary of the sandbox: the MariaDB instance that serves {@code keyspace/shard} as
 * tablet {@code <cell>-<uid>}. The uid doubles as the MariaDB {@code server_id}, so every instance
 * writes GTIDs of its own.
 */
public record ShardPrimary(String keyspace, String shard, long uid) {
  public ShardPrimary {
    Names.keyspace(keyspace);
    Names.shard(shard);
    if (uid < 1 || uid > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("uid " + uid + " is outside 1..4294967295 (it is the server_id)");
    }
  }

  public TabletAlias alias(String cell) {
    return new TabletAlias(cell, uid);
  }

  public KeyRange keyRange() {
    return KeyRange.ofShard(shard);
  }

  /** The database the tablet serves: Vitess's {@code vt_<keyspace>}. */
  public String dbName() {
    return "vt_" + keyspace;
  }

  /** The instance's folder name, as Vitess names tablet folders under VTDATAROOT. */
  public String folderName() {
    return String.format("vt_%010d", uid);
  }

  @Override
  public String toString() {
    return keyspace + "/" + shard + " (uid " + uid + ")";
  }
}
