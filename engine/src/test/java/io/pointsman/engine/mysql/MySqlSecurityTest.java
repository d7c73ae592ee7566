package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.testing.SecureMariaDb;
import io.pointsman.engine.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
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
  private static SecureMariaDb mariadb;

  @BeforeAll
  static void startMariaDb() throws Exception {
    dir = Files.createTempDirectory("pointsman-mysql-tls");
    ca = TestCertificates.newAuthority(dir.resolve("certs"), "db");
    otherCa = TestCertificates.newAuthority(dir.resolve("certs"), "other");
    mariadb = SecureMariaDb.start(dir.resolve("mariadb"), ca, ca.issue("mariadb", "DNS:localhost"), PASSWORD,
        leastPrivilegeAccounts());
  }

  /** The pointsman account with the README's grants, and the same account without TRIGGER. */
  private static List<String> leastPrivilegeAccounts() {
    List<String> sql = new java.util.ArrayList<>(List.of(
        "CREATE DATABASE " + DATA_DB + ";",
        "CREATE TABLE " + DATA_DB + ".orders (id BIGINT PRIMARY KEY);"));
    sql.addAll(SecureMariaDb.pointsmanAccount("pointsman", PASSWORD, DATA_DB, SIDECAR_DB));
    sql.addAll(List.of(
        // the same account without TRIGGER, to show what a missing grant looks like
        "CREATE USER 'notrigger'@'%' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL;",
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `" + SIDECAR_DB + "`.* TO 'notrigger'@'%';",
        "GRANT SELECT ON `" + DATA_DB + "`.* TO 'notrigger'@'%';"));
    return sql;
  }

  @AfterAll
  static void stopMariaDb() throws Exception {
    if (mariadb != null) {
      mariadb.close();
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
    return mariadb.endpoint(host, DATA_DB);
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
      st.execute(DenyTriggers.createStatement(DATA_DB, "_vt", "orders", DenyTriggers.Event.INSERT, java.util.Set.of()));
      st.execute("DROP TRIGGER " + DATA_DB + ".`" + DenyTriggers.name("orders", DenyTriggers.Event.INSERT) + "`");
    } catch (java.sql.SQLException e) {
      throw SqlErrors.translate("installing the barrier trigger as " + user, e);
    }
  }

  private static void setGlobal(String variable, String value) throws Exception {
    mariadb.admin("SET GLOBAL " + variable + " = " + value);
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
}
