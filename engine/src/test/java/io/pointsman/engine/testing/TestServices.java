package io.pointsman.engine.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Where the services started by {@code scripts/test.sh} listen. Tests fail (never skip) when they
 * are missing, so a CI run without real etcd and MariaDB cannot pass by testing nothing.
 */
public final class TestServices {
  private TestServices() {}

  public static String etcdEndpoint() {
    return required("POINTSMAN_TEST_ETCD");
  }

  public static String mysqlHost() {
    return required("POINTSMAN_TEST_MYSQL_HOST");
  }

  public static int mysqlPort() {
    return Integer.parseInt(required("POINTSMAN_TEST_MYSQL_PORT"));
  }

  public static String mysqlUser() {
    return required("POINTSMAN_TEST_MYSQL_USER");
  }

  public static String mysqlPassword() {
    return required("POINTSMAN_TEST_MYSQL_PASSWORD");
  }

  /** A connection of its own to the test MySQL as its user, as an application would open one (autocommit on). */
  public static Connection mysqlConnection() throws SQLException {
    return DriverManager.getConnection("jdbc:mysql://" + mysqlHost() + ":" + mysqlPort()
        + "/?sslMode=DISABLED&connectTimeout=5000", mysqlUser(), mysqlPassword());
  }

  /** The etcd binary, for tests that start, kill and restart an etcd of their own. */
  public static String etcdBinary() {
    return Optional.ofNullable(System.getenv("POINTSMAN_ETCD_BIN")).orElse("etcd");
  }

  public static String mariadbdBinary() {
    return Optional.ofNullable(System.getenv("POINTSMAN_MARIADBD_BIN")).orElse("mariadbd");
  }

  public static String mariadbInstallDbBinary() {
    return Optional.ofNullable(System.getenv("POINTSMAN_MARIADB_INSTALL_DB_BIN")).orElse("mariadb-install-db");
  }

  /**
   * The Temporal CLI whose {@code server start-dev} the real-server tests run (scripts/temporal.sh
   * builds it; scripts/test.sh exports its path). Required, like etcd: a run without it fails.
   */
  public static String temporalBinary() {
    String bin = required("POINTSMAN_TEMPORAL_BIN");
    if (!java.nio.file.Files.isExecutable(java.nio.file.Path.of(bin))) {
      throw new IllegalStateException("POINTSMAN_TEMPORAL_BIN=" + bin + " is not an executable file: "
          + "./scripts/temporal.sh build makes it");
    }
    return bin;
  }

  private static String required(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          name + " is not set: run the tests with ./scripts/test.sh, which starts etcd and MariaDB");
    }
    return v;
  }
}
