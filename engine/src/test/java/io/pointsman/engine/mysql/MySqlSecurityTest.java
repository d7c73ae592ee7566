package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TabletAlias;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * pointsman against a MariaDB that accepts TLS connections only ({@code require_secure_transport})
 * and an account that must use TLS ({@code REQUIRE SSL}) and holds only the grants pointsman needs
 * (those the README's "Running securely" lists). The server certificate names {@code localhost}
 * but not {@code 127.0.0.1}, so one server shows VERIFY_IDENTITY both passing and failing.
 */
@Timeout(240)
class MySqlSecurityTest {
  private static final String PASSWORD = "pointsman-secret";
  private static final String DATA_DB = "customer";
  private static final String SIDECAR_DB = "_vt";

  private static Path dir;
  private static TestCertificates ca;
  private static TestCertificates otherCa;
  private static int port;
  private static Process mariadbd;

  @BeforeAll
  static void startMariaDb() throws Exception {
    dir = Files.createTempDirectory("pointsman-mysql-tls");
    ca = TestCertificates.newAuthority(dir.resolve("certs"), "db");
    otherCa = TestCertificates.newAuthority(dir.resolve("certs"), "other");
    TestCertificates.Issued server = ca.issue("mariadb", "DNS:localhost");
    port = freePort();
    String osUser = System.getProperty("user.name");
    run(List.of(TestServices.mariadbInstallDbBinary(), "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--user=" + osUser, "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
    Path init = dir.resolve("init.sql");
    Files.writeString(init, String.join("\n",
        "CREATE USER 'admin'@'%' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL;",
        "GRANT ALL PRIVILEGES ON *.* TO 'admin'@'%';",
        "CREATE DATABASE " + DATA_DB + ";",
        "CREATE TABLE " + DATA_DB + ".orders (id BIGINT PRIMARY KEY);",
        "CREATE USER 'pointsman'@'%' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL;",
        // the sidecar database: pointsman creates it and its tables, and reads and writes them
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `" + SIDECAR_DB + "`.* TO 'pointsman'@'%';",
        // the data databases: barrier triggers, LOCK TABLES drain, Complete's drops and renames
        "GRANT SELECT, TRIGGER, LOCK TABLES, DROP, ALTER, CREATE, INSERT ON `" + DATA_DB + "`.* TO 'pointsman'@'%';",
        // naming the transactions a drain waits for; DDL kept out of the binlog
        "GRANT PROCESS, BINLOG ADMIN ON *.* TO 'pointsman'@'%';",
        // the same account without TRIGGER, to show what a missing grant looks like
        "CREATE USER 'notrigger'@'%' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL;",
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `" + SIDECAR_DB + "`.* TO 'notrigger'@'%';",
        "GRANT SELECT ON `" + DATA_DB + "`.* TO 'notrigger'@'%';",
        ""));
    mariadbd = new ProcessBuilder(List.of(TestServices.mariadbdBinary(), "--no-defaults",
            "--datadir=" + dir.resolve("data"), "--user=" + osUser, "--bind-address=127.0.0.1",
            "--port=" + port, "--socket=" + dir.resolve("mysql.sock"), "--pid-file=" + dir.resolve("mysql.pid"),
            "--log-bin=mysql-bin", "--server-id=1", "--binlog-format=ROW", "--skip-name-resolve",
            "--require-secure-transport=ON", "--ssl-ca=" + ca.caCert(), "--ssl-cert=" + server.cert(),
            "--ssl-key=" + server.key(), "--init-file=" + init,
            // triggers with the binary log on need SUPER otherwise (see aTriggerWithoutSuperNamesTheServerSetting)
            "--log-bin-trust-function-creators=OFF"))
        .redirectErrorStream(true).redirectOutput(dir.resolve("mysql.log").toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    awaitReady();
  }

  @AfterAll
  static void stopMariaDb() throws Exception {
    if (mariadbd != null) {
      mariadbd.destroy();
      if (!mariadbd.waitFor(60, TimeUnit.SECONDS)) {
        mariadbd.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static MySqlOptions options(String user, MySqlOptions.TlsMode mode, Path caFile) {
    MySqlOptions.Builder b = MySqlOptions.builder().user(user).password(PASSWORD).tlsMode(mode)
        .connectTimeout(Duration.ofSeconds(3));
    if (caFile != null) {
      b.tlsCaFile(caFile);
    }
    return b.build();
  }

  private static PrimaryEndpoint endpoint(String host) {
    return new PrimaryEndpoint("customer", "0", new TabletAlias("zone1", 100), host, port, DATA_DB, SIDECAR_DB);
  }

  @Test
  void verifyIdentityWithTheNameInTheCertificateRunsPointsmansStatements() {
    try (ConnectionPools pools = new ConnectionPools(options("pointsman", MySqlOptions.TlsMode.VERIFY_IDENTITY,
        ca.caCert()))) {
      PrimaryEndpoint primary = endpoint("localhost");
      new SidecarSchema(pools).ensure(primary);
      assertThat(new PrimaryPositions(pools).current(primary)).isNotNull();
      assertThat(cipher(pools, primary)).isNotBlank();
    }
  }

  @Test
  void verifyCaAcceptsTheCertificateWhateverHostItNames() {
    try (ConnectionPools pools = new ConnectionPools(options("pointsman", MySqlOptions.TlsMode.VERIFY_CA,
        ca.caCert()))) {
      assertThat(cipher(pools, endpoint("127.0.0.1"))).isNotBlank();
    }
  }

  @Test
  void verifyIdentityFailsWhenTheCertificateDoesNotNameTheHost() {
    try (ConnectionPools pools = new ConnectionPools(options("pointsman", MySqlOptions.TlsMode.VERIFY_IDENTITY,
        ca.caCert()))) {
      assertThatThrownBy(() -> pools.connection(endpoint("127.0.0.1")).close())
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.getMessage()).contains("127.0.0.1").containsIgnoringCase("identity");
            // a TLS failure stays retryable: it is also what a certificate rotation in progress looks like
            assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
          });
    }
  }

  @Test
  void verifyCaFailsForAServerCertificateOfAnotherCa() {
    try (ConnectionPools pools = new ConnectionPools(options("pointsman", MySqlOptions.TlsMode.VERIFY_CA,
        otherCa.caCert()))) {
      assertThatThrownBy(() -> pools.connection(endpoint("127.0.0.1")).close())
          .isInstanceOfSatisfying(PointsmanException.class, e ->
              assertThat(e.getMessage()).contains("not signed by the CA in MYSQL_TLS_CA_FILE"));
    }
  }

  @Test
  void aConnectionWithoutTlsIsRefused() {
    try (ConnectionPools pools = new ConnectionPools(options("pointsman", MySqlOptions.TlsMode.DISABLED, null))) {
      assertThatThrownBy(() -> pools.connection(endpoint("127.0.0.1")).close())
          .isInstanceOfSatisfying(PointsmanException.class, e ->
              assertThat(e.getMessage()).contains("Access denied for user 'pointsman'",
                  "REQUIRE SSL is also refused this way when MYSQL_TLS_MODE is DISABLED"));
    }
  }

  @Test
  void aTriggerWithoutSuperNamesTheServerSetting() {
    assertThatThrownBy(() -> createTrigger("pointsman"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.getMessage()).contains("needs SUPER, or log_bin_trust_function_creators = ON");
          assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
        });
  }

  @Test
  void aMissingTriggerGrantIsNamed() throws Exception {
    setGlobal("log_bin_trust_function_creators", "ON");
    try {
      createTrigger("pointsman"); // the listed grants suffice once the server trusts trigger creators
      assertThatThrownBy(() -> createTrigger("notrigger"))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.getMessage()).contains("TRIGGER command denied");
            assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
          });
    } finally {
      setGlobal("log_bin_trust_function_creators", "OFF");
    }
  }

  private static void createTrigger(String user) {
    try (ConnectionPools pools = new ConnectionPools(options(user, MySqlOptions.TlsMode.VERIFY_CA, ca.caCert()));
         Connection c = pools.connection(endpoint("127.0.0.1"));
         Statement st = c.createStatement()) {
      st.execute(DenyTriggers.createStatement(DATA_DB, "orders", DenyTriggers.Event.INSERT, java.util.Set.of()));
      st.execute("DROP TRIGGER " + DATA_DB + ".`" + DenyTriggers.name("orders", DenyTriggers.Event.INSERT) + "`");
    } catch (java.sql.SQLException e) {
      throw SqlErrors.translate("installing the barrier trigger as " + user, e);
    }
  }

  private static void setGlobal(String variable, String value) throws Exception {
    try (ConnectionPools pools = new ConnectionPools(options("admin", MySqlOptions.TlsMode.REQUIRED, null));
         Connection c = pools.dedicatedConnection(endpoint("127.0.0.1"));
         Statement st = c.createStatement()) {
      st.execute("SET GLOBAL " + variable + " = " + value);
    }
  }

  private static String cipher(ConnectionPools pools, PrimaryEndpoint primary) {
    try (Connection c = pools.connection(primary); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(2);
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitReady() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    MySqlOptions admin = options("admin", MySqlOptions.TlsMode.REQUIRED, null);
    while (true) {
      if (!mariadbd.isAlive()) {
        throw new IOException("mariadbd exited: " + Files.readString(dir.resolve("mysql.log")));
      }
      try (ConnectionPools pools = new ConnectionPools(admin);
           Connection c = pools.dedicatedConnection(endpoint("127.0.0.1"))) {
        return;
      } catch (PointsmanException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException("MariaDB was not ready: " + e.getMessage() + "\n"
              + Files.readString(dir.resolve("mysql.log")), e);
        }
        Thread.sleep(200);
      }
    }
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(command.get(0) + " failed: " + Files.readString(log));
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
