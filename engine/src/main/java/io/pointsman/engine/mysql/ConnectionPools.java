package io.pointsman.engine.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pointsman.api.errors.PointsmanException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HikariCP pool per MySQL server ({@code host:port}), created on first use with the worker's
 * {@link MySqlOptions}. Thread-safe. Closing closes every pool; connections handed out before stay
 * usable until their holders close them.
 */
public final class ConnectionPools implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionPools.class);

  private final MySqlOptions options;
  private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();
  private volatile Path trustStore;
  private volatile boolean closed;
  private final AtomicLong dedicatedOpened = new AtomicLong();

  public ConnectionPools(MySqlOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  public MySqlOptions options() {
    return options;
  }

  /**
   * A pooled connection to the endpoint's server, in autocommit mode; close it to return it.
   *
   * @throws PointsmanException UNAVAILABLE when no connection can be had in time
   */
  public Connection connection(PrimaryEndpoint endpoint) {
    try {
      return pool(endpoint).getConnection();
    } catch (SQLException e) {
      throw SqlErrors.translate("connecting to " + endpoint, e);
    }
  }

  /**
   * A fresh connection outside the pool, for work whose session state must die with it: LOCK
   * TABLES (closing the connection releases the locks even if UNLOCK is never reached) and
   * session settings such as {@code sql_log_bin}.
   */
  public Connection dedicatedConnection(PrimaryEndpoint endpoint) {
    checkOpen();
    dedicatedOpened.incrementAndGet();
    try {
      return DriverManager.getConnection(jdbcUrl(endpoint), connectionProperties(true));
    } catch (SQLException e) {
      throw SqlErrors.translate("connecting to " + endpoint, e);
    }
  }

  /**
   * How many {@link #dedicatedConnection}s were asked for so far: each is a connect and a
   * handshake of its own, which the write window avoids where it can.
   */
  public long dedicatedConnectionsOpened() {
    return dedicatedOpened.get();
  }

  private HikariDataSource pool(PrimaryEndpoint endpoint) {
    checkOpen();
    return pools.computeIfAbsent(endpoint.address(), address -> {
      HikariConfig config = new HikariConfig();
      config.setPoolName("pointsman-mysql-" + address);
      config.setJdbcUrl(jdbcUrl(endpoint));
      config.setDataSourceProperties(connectionProperties(false));
      config.setUsername(options.user());
      config.setPassword(options.resolvePassword());
      config.setMaximumPoolSize(options.poolSize());
      // A worker talks to many primaries briefly: keep no idle connections around for long.
      config.setMinimumIdle(0);
      config.setIdleTimeout(60_000);
      config.setConnectionTimeout(Math.max(250, options.connectTimeout().toMillis() * 2));
      // Create the pool even while the server is down; getConnection then fails with UNAVAILABLE.
      config.setInitializationFailTimeout(-1);
      log.info("opening MySQL pool for {} as user {}", address, options.user());
      return new HikariDataSource(config);
    });
  }

  private String jdbcUrl(PrimaryEndpoint endpoint) {
    // No default database: every statement names its database, validated and quoted.
    return "jdbc:mysql://" + endpoint.address() + "/";
  }

  private Properties connectionProperties(boolean withCredentials) {
    Properties p = new Properties();
    if (withCredentials) {
      p.setProperty("user", options.user());
      p.setProperty("password", options.resolvePassword());
    }
    p.setProperty("connectTimeout", Long.toString(options.connectTimeout().toMillis()));
    p.setProperty("socketTimeout", Long.toString(options.socketTimeout().toMillis()));
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("sslMode", options.tlsMode().name());
    p.setProperty("allowPublicKeyRetrieval", Boolean.toString(options.allowPublicKeyRetrieval()));
    // Defaults already, spelled out because they are security boundaries.
    p.setProperty("allowMultiQueries", "false");
    p.setProperty("allowLoadLocalInfile", "false");
    p.setProperty("characterEncoding", "UTF-8");
    options.tlsCaFile().ifPresent(ca -> {
      Path store = trustStore(ca);
      p.setProperty("trustCertificateKeyStoreUrl", store.toUri().toString());
      p.setProperty("trustCertificateKeyStoreType", "PKCS12");
      p.setProperty("trustCertificateKeyStorePassword", TrustStores.PASSWORD);
    });
    return p;
  }

  private Path trustStore(Path caFile) {
    Path store = trustStore;
    if (store == null) {
      synchronized (this) {
        if (trustStore == null) {
          trustStore = TrustStores.fromPem(caFile);
        }
        store = trustStore;
      }
    }
    return store;
  }

  private void checkOpen() {
    if (closed) {
      throw PointsmanException.failedPrecondition("MySQL connection pools are closed");
    }
  }

  /** Closes every pool. Idempotent. */
  @Override
  public void close() {
    closed = true;
    pools.values().forEach(HikariDataSource::close);
    pools.clear();
  }
}
