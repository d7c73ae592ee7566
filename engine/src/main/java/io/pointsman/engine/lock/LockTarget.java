package io.pointsman.engine.lock;

import io.pointsman.engine.topo.TopoPaths;

/**
 * What a lock is taken on: the resource directory whose {@code locks/} holds the lock keys, and, for
 * keyspaces and shards, the message when the resource does not exist. Building one validates the
 * names, so a bad name fails before etcd is asked anything.
 *
 * @param dir the resource directory, e.g. {@code /vitess/global/keyspaces/customer}
 * @param resource how messages name it, e.g. {@code keyspace customer}
 * @param notFound the message when nothing exists below {@code dir}; null when it need not exist
 */
record LockTarget(String dir, String resource, String notFound) {

  static LockTarget keyspace(TopoPaths paths, String keyspace) {
    String dir = paths.keyspaceDir(keyspace);
    return new LockTarget(dir, "keyspace " + keyspace, "keyspace '" + keyspace + "' does not exist (no keys under "
        + dir + "/)");
  }

  static LockTarget shard(TopoPaths paths, String keyspace, String shard) {
    String dir = paths.shardDir(keyspace, shard);
    return new LockTarget(dir, "shard " + keyspace + "/" + shard,
        "shard '" + keyspace + "/" + shard + "' does not exist (no keys under " + dir + "/)");
  }

  static LockTarget named(TopoPaths paths, String name) {
    return new LockTarget(paths.namedLockDir(name), "named lock " + name, null);
  }

  boolean mustExist() {
    return notFound != null;
  }

  String locksPrefix() {
    return TopoPaths.locksPrefix(dir);
  }
}
