package io.pointsman.sandbox.router;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One small connection pool per primary database (host, port, schema), opened on first use and
 * closed with the router. Several sandbox shards may share one MySQL server with different
 * databases, so the database is part of the pool's identity.
 */
final class ShardPools implements AutoCloseable {
  private final RouterOptions options;
  private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();
  private volatile boolean closed;

  ShardPools(RouterOptions options) {
    this.options = options;
  }

  /**
   * A connection to the target's database.
   *
   * @throws SQLException when none could be had within the connect timeout; nothing was sent
   */
  Connection connect(Target target) throws SQLException {
    if (closed) {
      throw new SQLException("router closed");
    }
    HikariDataSource pool = pools.computeIfAbsent(target.endpoint(), k -> open(target));
    if (closed) {
      pool.close(); // lost a race with close(): do not leave it open
      throw new SQLException("router closed");
    }
    return pool.getConnection();
  }

  private HikariDataSource open(Target t) {
    HikariConfig c = new HikariConfig();
    c.setPoolName("router " + t.endpoint());
    c.setJdbcUrl("jdbc:mysql://" + t.host() + ":" + t.port() + "/" + t.database());
    c.setUsername(options.mysqlUser());
    c.setPassword(options.mysqlPassword());
    c.setMaximumPoolSize(options.poolSize());
    c.setMinimumIdle(1);
    c.setConnectionTimeout(Math.max(250, options.connectTimeout().toMillis()));
    // Do not fail here when the primary is down; the statement's own connect attempt reports it.
    c.setInitializationFailTimeout(-1);
    c.setAutoCommit(true);
    c.addDataSourceProperty("connectTimeout", String.valueOf(options.connectTimeout().toMillis()));
    // The query timeout (setQueryTimeout) should fire first and KILL the query; the socket timeout
    // only catches a server that stopped answering altogether.
    c.addDataSourceProperty("socketTimeout", String.valueOf(options.statementTimeout().plusSeconds(5).toMillis()));
    return new HikariDataSource(c);
  }

  @Override
  public void close() {
    closed = true;
    pools.values().forEach(HikariDataSource::close);
    pools.clear();
  }
}
