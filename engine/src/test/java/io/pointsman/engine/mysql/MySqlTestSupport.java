package io.pointsman.engine.mysql;

import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TabletAlias;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A test's own corner of the shared test MariaDB: a fresh data database and a fresh sidecar
 * database (so tests never share {@code _vt}), the production classes wired over them, and plain
 * JDBC connections for the concurrent clients tests play. Closing drops both databases.
 */
final class MySqlTestSupport implements AutoCloseable {
  final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  final ConnectionPools pools = new ConnectionPools(options());
  final SidecarSchema schema = new SidecarSchema(pools);
  final MySqlFence fence = new MySqlFence(pools, schema);
  final PrimaryEndpoint endpoint = endpoint("vt_pm_" + suffix, "pmside_" + suffix);
  /** A unique lock directory per test, so fence rows never collide between tests. */
  final String lockDir = "/pointsman-test/" + suffix + "/global/keyspaces/customer";

  MySqlTestSupport() throws SQLException {
    exec("CREATE DATABASE " + endpoint.dbName());
  }

  static MySqlOptions options() {
    return MySqlOptions.builder()
        .user(TestServices.mysqlUser())
        .password(TestServices.mysqlPassword())
        .tlsMode(MySqlOptions.TlsMode.DISABLED)
        .poolSize(8)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  static PrimaryEndpoint endpoint(String db, String sidecar) {
    return new PrimaryEndpoint("customer", "0", new TabletAlias("zone1", 100), TestServices.mysqlHost(),
        TestServices.mysqlPort(), db, sidecar);
  }

  /** A lock set holding the test's keyspace lock with the given create revision (fencing token). */
  LockSet lock(long revision) {
    return LockSet.of(token(lockDir, revision));
  }

  static LockToken token(String dir, long revision) {
    return new LockToken(dir + "/locks/" + (7_000_000 + revision), "keyspace customer", 7_000_000 + revision,
        revision, Duration.ofMinutes(2), Instant.now());
  }

  /** A client connection of its own, as an application would open one (autocommit on). */
  static Connection client() throws SQLException {
    return TestServices.mysqlConnection();
  }

  static void exec(String sql) throws SQLException {
    try (Connection c = client(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  String table(String name) {
    return endpoint.dbName() + "." + name;
  }

  @Override
  public void close() throws SQLException {
    try {
      exec("DROP DATABASE IF EXISTS " + endpoint.dbName());
      exec("DROP DATABASE IF EXISTS " + endpoint.sidecarDb());
    } finally {
      pools.close();
    }
  }
}
