package io.pointsman.worker.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.testing.SecureEtcdProcess;
import io.pointsman.engine.testing.SecureMariaDb;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.worker.TemporalDevServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code check-config} against an etcd and a MariaDB set up as EtcdSecurityTest and MySqlSecurityTest
 * set them up (TLS with client certificates, etcd auth with a role on the topology roots; TLS-only
 * MariaDB with the README's grants) and the Temporal dev server: the right settings report every
 * service working; a read-only role, an account without TRIGGER, a server that needs SUPER for
 * triggers, a wrong password and an unreachable Temporal are each named as missing, with exit 1,
 * and nothing is written anywhere.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CheckConfigTest {
  private static final String PASSWORD = "check-secret-pw";
  private static final String ROOT_PASSWORD = "check-root-pw";
  private static final TopoPaths PATHS = new TopoPaths("/secure/global", "/secure/cells");
  private static final TabletAlias PRIMARY = new TabletAlias("zone1", 100);

  private static Path dir;
  private static TestCertificates ca;
  private static TestCertificates.Issued client;
  private static SecureEtcdProcess etcd;
  private static SecureMariaDb mariadb;
  private static TemporalDevServer temporal;
  private static Client root;

  @BeforeAll
  static void up() throws Exception {
    dir = Files.createTempDirectory("pointsman-check-config");
    ca = TestCertificates.newAuthority(dir.resolve("certs"), "ca");
    client = ca.issue("pointsman-worker");
    etcd = new SecureEtcdProcess(dir.resolve("etcd"), ca, ca.issue("etcd", "IP:127.0.0.1"), ca.issue("admin"))
        .start();
    etcd.addPointsmanAccounts(PATHS, ROOT_PASSWORD, PASSWORD)
        .addGlobalReader("reader", PASSWORD, "reader", PATHS)
        .enableAuth();

    List<String> init = new java.util.ArrayList<>(List.of("CREATE DATABASE customer;",
        "CREATE TABLE customer.orders (id BIGINT PRIMARY KEY);"));
    init.addAll(SecureMariaDb.pointsmanAccount("pointsman", PASSWORD, "customer", "_vt"));
    init.add("CREATE USER 'notrigger'@'%' IDENTIFIED BY '" + PASSWORD + "' REQUIRE SSL;");
    init.add("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `\\_vt`.* TO 'notrigger'@'%';");
    init.add("GRANT SELECT ON `customer`.* TO 'notrigger'@'%';");
    mariadb = SecureMariaDb.start(dir.resolve("mariadb"), ca, ca.issue("mariadb", "DNS:localhost"), ROOT_PASSWORD,
        init);

    // the topology: one keyspace, one shard whose primary is that MariaDB, one cell
    root = EtcdClients.create(etcdOptions("root", ROOT_PASSWORD));
    EtcdTopologyStore store = new EtcdTopologyStore(root, PATHS);
    store.create(store.keys().cellInfo("zone1"), new CellInfo(etcd.endpoint(), PATHS.cellRoot("zone1")));
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    store.create(store.keys().shard("customer", "0"), Shard.of(KeyRange.ofShard("0"), PRIMARY, true));
    store.create(store.keys().tablet(PRIMARY), new Tablet(PRIMARY, "localhost", Map.of(), "customer", "0",
        KeyRange.ofShard("0"), TabletType.PRIMARY, "customer", "localhost", mariadb.port()));

    temporal = TemporalDevServer.start(Path.of(TestServices.temporalBinary()), dir.resolve("temporal"));
  }

  @AfterAll
  static void down() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {root, temporal, mariadb, etcd}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // keep closing the rest
        }
      }
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theRightSettingsReportEveryServiceWorking() throws Exception {
    mariadb.admin("SET GLOBAL log_bin_trust_function_creators = ON");
    try {
      Run r = check(env("pointsman", PASSWORD, "pointsman"));
      assertThat(r.exit()).as(r.out()).isZero();
      assertThat(r.out()).contains(
          "etcd " + etcd.endpoint() + " (user pointsman)",
          "ok      connect: TLS with client certificate, authenticated as pointsman",
          "ok      readwrite on /secure/global/",
          "ok      readwrite on /secure/cells/zone1/",
          "mysql customer/0 primary zone1-0000000100 localhost:" + mariadb.port(),
          "ok      connect: TLS, cipher ",
          "server certificate names localhost",
          "ok      grants: 13 of the 13 pointsman needs are held",
          "temporal " + temporal.address() + " (namespace default)",
          "ok      namespace default",
          "check-config: everything works; nothing was changed");
      assertThat(r.out()).doesNotContain("MISSING", PASSWORD, ROOT_PASSWORD);
    } finally {
      mariadb.admin("SET GLOBAL log_bin_trust_function_creators = OFF");
    }
  }

  @Test
  void aRoleThatCannotWriteTheLocksIsMissingAndNothingIsWritten() throws Exception {
    long before = revision();
    Run r = check(env("reader", PASSWORD, "pointsman"));
    assertThat(r.exit()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains("ok      connect: TLS with client certificate, authenticated as reader",
        "MISSING readwrite on /secure/global/: the topology records and the keyspaces' lock keys: etcd denied access",
        "MISSING read on /secure/cells/zone1/");
    assertThat(revision()).as("etcd's revision: nothing written by the probes").isEqualTo(before);
    // the probes as the pointsman user did not write either
    check(env("pointsman", PASSWORD, "pointsman"));
    assertThat(revision()).isEqualTo(before);
  }

  @Test
  void anAccountWithoutTheBarrierGrantsIsMissingEachNamedWithItsUse() {
    Run r = check(env("pointsman", PASSWORD, "notrigger"), "--mysql", "localhost:" + mariadb.port() + "/customer");
    assertThat(r.exit()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains("mysql --mysql localhost:" + mariadb.port() + " (user notrigger",
        "MISSING TRIGGER on `customer`.*: the write barrier's deny triggers",
        "MISSING LOCK TABLES on `customer`.*: the barrier's LOCK TABLES drain",
        "MISSING DROP on `customer`.*: Complete's DROP TABLE and RENAME TABLE",
        "MISSING PROCESS on *.*",
        "ok      grants: 6 of the 14 pointsman needs are held")
        // the sidecar grant given as `\_vt` covers _vt
        .doesNotContain("MISSING SELECT on `_vt`", "BINLOG ADMIN");
  }

  @Test
  void aServerThatWantsSuperForTriggersSaysSo() {
    Run r = check(env("pointsman", PASSWORD, "pointsman"));
    assertThat(r.exit()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains("MISSING SUPER on *.*: creating triggers with the binary log on; or set "
        + "log_bin_trust_function_creators = ON on the server");
  }

  @Test
  void aWrongPasswordAndAnUnreachableTemporalAreNamed() throws Exception {
    Map<String, String> env = env("pointsman", "not-the-password", "pointsman");
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    env.put("TEMPORAL_ADDRESS", "127.0.0.1:" + closed);
    Run r = check(env);
    assertThat(r.exit()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains("MISSING connect: etcd refused the user name or password (ETCD_USER, ETCD_PASSWORD)",
        "MISSING connect: plaintext: cannot reach Temporal at 127.0.0.1:" + closed)
        .doesNotContain("not-the-password");
  }

  @Test
  void aWrongCommandLineIsRefused() {
    Run r = check(env("pointsman", PASSWORD, "pointsman"), "--mysql", "localhost/customer");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--mysql 'localhost/customer': expected HOST:PORT/DATABASE");
  }

  private static EtcdOptions etcdOptions(String user, String password) {
    return EtcdOptions.builder().endpoints(etcd.endpoint()).caFile(ca.caCert()).certFile(client.cert())
        .keyFile(client.key()).user(user).password(password).build();
  }

  private static Map<String, String> env(String etcdUser, String etcdPassword, String mysqlUser) {
    Map<String, String> env = new HashMap<>();
    env.put("ETCD_ENDPOINTS", etcd.endpoint());
    env.put("ETCD_CA_FILE", ca.caCert().toString());
    env.put("ETCD_CERT_FILE", client.cert().toString());
    env.put("ETCD_KEY_FILE", client.key().toString());
    env.put("ETCD_USER", etcdUser);
    env.put("ETCD_PASSWORD", etcdPassword);
    env.put("TOPO_GLOBAL_ROOT", PATHS.globalRoot());
    env.put("TOPO_CELL_ROOT_PREFIX", PATHS.cellRootPrefix());
    env.put("MYSQL_USER", mysqlUser);
    env.put("MYSQL_PASSWORD", PASSWORD);
    env.put("MYSQL_TLS_MODE", "VERIFY_IDENTITY");
    env.put("MYSQL_TLS_CA_FILE", ca.caCert().toString());
    env.put("TEMPORAL_ADDRESS", temporal.address());
    return env;
  }

  record Run(int exit, String out, String err) {}

  private static Run check(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = CheckConfigMain.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static long revision() throws Exception {
    return root.getKVClient().get(EtcdClients.bytes("/")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
  }
}
