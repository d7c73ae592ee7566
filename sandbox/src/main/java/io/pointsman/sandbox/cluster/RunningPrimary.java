package io.pointsman.sandbox.cluster;

import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.Keyspace;
import java.sql.Connection;

/**
 * A sandbox primary that is up: its shard, tablet alias and loopback MySQL port, and whether the
 * sandbox found it already running (then it is not the one to stop it).
 */
public record RunningPrimary(ShardPrimary primary, TabletAlias alias, int port, boolean reused) {
  public static final String HOST = "127.0.0.1";

  /** This primary as io.pointsman.engine.mysql addresses it (sidecar database {@code _vt}). */
  public PrimaryEndpoint endpoint() {
    return new PrimaryEndpoint(primary.keyspace(), primary.shard(), alias, HOST, port, primary.dbName(),
        Keyspace.DEFAULT_SIDECAR_DB);
  }

  /** A new connection to this primary's MySQL; the caller closes it. */
  public Connection connect(MysqlCredentials credentials) {
    return Jdbc.open(HOST, port, credentials);
  }
}
