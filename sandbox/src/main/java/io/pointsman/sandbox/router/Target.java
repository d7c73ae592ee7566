package io.pointsman.sandbox.router;

import io.pointsman.engine.topo.TabletAlias;

/**
 * Where a statement goes: the keyspace and table the routing rules resolved to, the shard whose key
 * range holds the keyspace id, and that shard's primary tablet with the MySQL it names.
 */
public record Target(
    String keyspace, String table, String shard, TabletAlias primary, String host, int port, String database) {

  /** {@code keyspace/shard}, as Vitess prints a shard. */
  public String keyspaceShard() {
    return keyspace + "/" + shard;
  }

  /** The MySQL endpoint and database; two targets with the same endpoint share a connection pool. */
  String endpoint() {
    return host + ":" + port + "/" + database;
  }
}
