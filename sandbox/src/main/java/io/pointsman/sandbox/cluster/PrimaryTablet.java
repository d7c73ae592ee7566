package io.pointsman.sandbox.cluster;

import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import java.sql.Connection;
import java.util.Objects;

/**
 * A shard's primary as the topology describes it: where its MySQL listens, the database it
 * serves and its keyspace's sidecar database.
 */
public record PrimaryTablet(
    String keyspace, String shard, KeyRange keyRange, TabletAlias alias, String host, int port, String dbName,
    String sidecarDb) {
  public PrimaryTablet {
    Names.keyspace(keyspace);
    Names.shard(shard);
    Objects.requireNonNull(keyRange, "keyRange");
    Objects.requireNonNull(alias, "alias");
    Objects.requireNonNull(host, "host");
    Ports.checkPort("mysql_port of " + alias, port);
    Names.database(dbName);
    Names.database(sidecarDb);
  }

  /** A new connection to this primary's MySQL; the caller closes it. */
  public Connection connect(MysqlCredentials credentials) {
    return Jdbc.open(host, port, credentials);
  }

  @Override
  public String toString() {
    return keyspace + "/" + shard + " (" + alias + " at " + host + ":" + port + ")";
  }
}
