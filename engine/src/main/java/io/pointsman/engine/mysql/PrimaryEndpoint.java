package io.pointsman.engine.mysql;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.api.names.Shown;
import io.pointsman.engine.topo.TabletAlias;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a shard's primary MySQL is and what it serves: resolved from the topology by
 * {@link PrimaryResolver}. Everything here ends up in a JDBC URL or an SQL identifier, so all of it
 * is validated on construction.
 *
 * @param keyspace the keyspace of the shard
 * @param shard the shard name
 * @param alias the primary tablet
 * @param host the MySQL host (name or IP address)
 * @param port the MySQL port
 * @param dbName the database the tablet serves ({@code vt_<keyspace>} unless overridden)
 * @param sidecarDb the sidecar database ({@code _vt} unless the keyspace overrides it)
 */
public record PrimaryEndpoint(
    String keyspace, String shard, TabletAlias alias, String host, int port, String dbName, String sidecarDb) {
  // Host names and IPv4 addresses, or IPv6 addresses; nothing that could add URL parameters.
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,252}|[0-9A-Fa-f:.]{2,45}");

  public PrimaryEndpoint {
    Names.keyspace(keyspace);
    Names.shard(shard);
    Objects.requireNonNull(alias, "alias");
    if (host == null || !HOST.matcher(host).matches()) {
      throw PointsmanException.failedPrecondition("primary " + alias + " of " + keyspace + "/" + shard
          + " has no usable mysql_hostname: '" + Shown.text(host) + "'");
    }
    if (port < 1 || port > 65535) {
      throw PointsmanException.failedPrecondition("primary " + alias + " of " + keyspace + "/" + shard
          + " has no usable mysql_port: " + port);
    }
    Names.database(dbName);
    Names.database(sidecarDb);
    if (dbName.equals(sidecarDb)) {
      throw PointsmanException.failedPrecondition(
          "keyspace " + keyspace + " serves database " + dbName + ", which is also its sidecar database");
    }
  }

  /** {@code host:port}, the identity of the MySQL server (and of its connection pool). */
  public String address() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  @Override
  public String toString() {
    return keyspace + "/" + shard + " (" + alias + " at " + address() + ")";
  }
}
