package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/** Opens plain JDBC connections to sandbox primaries (loopback, no TLS). */
public final class Jdbc {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration SOCKET_TIMEOUT = Duration.ofMinutes(2);

  private Jdbc() {}

  /**
   * A connection to {@code host:port} with no default database; statements name their database.
   *
   * @throws PointsmanException UNAVAILABLE when the server cannot be reached or refuses the login
   */
  public static Connection open(String host, int port, MysqlCredentials credentials) {
    try {
      return tryOpen(host, port, credentials, CONNECT_TIMEOUT);
    } catch (SQLException e) {
      throw PointsmanException.unavailable(
          "cannot connect to MySQL at " + host + ":" + port + " as " + credentials.user() + ": " + e.getMessage(), e);
    }
  }

  static Connection tryOpen(String host, int port, MysqlCredentials credentials, Duration connectTimeout)
      throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", credentials.user());
    p.setProperty("password", credentials.password());
    p.setProperty("sslMode", "DISABLED");
    p.setProperty("allowPublicKeyRetrieval", "true");
    p.setProperty("connectTimeout", Long.toString(connectTimeout.toMillis()));
    p.setProperty("socketTimeout", Long.toString(SOCKET_TIMEOUT.toMillis()));
    return DriverManager.getConnection("jdbc:mysql://" + host + ":" + port + "/", p);
  }
}
