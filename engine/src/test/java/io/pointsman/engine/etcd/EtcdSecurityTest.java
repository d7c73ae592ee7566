package io.pointsman.engine.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.testing.SecureEtcdProcess;
import io.pointsman.engine.testing.TestCertificates;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * pointsman against an etcd that requires what a production one does: TLS with client
 * certificates from its own CA, and etcd's own authentication with a pointsman user whose role
 * reaches only the topology roots (global root and cell root prefix, which hold the lock keys).
 * With the right settings a keyspace lock and a fenced topology write work; each wrong setting
 * fails at once, with a message naming the cause, and leaves etcd untouched.
 */
@Timeout(180)
class EtcdSecurityTest {
  private static final String ROOT_PASSWORD = "root-secret";
  private static final String POINTSMAN_PASSWORD = "pointsman-secret";
  private static final String READER_PASSWORD = "reader-secret";
  /** Far below a lock's default acquire timeout: "at once" means no retrying or waiting. */
  private static final Duration PROMPT = Duration.ofSeconds(8);
  private static final TopoPaths PATHS = new TopoPaths("/secure/global", "/secure/cells");

  private static Path dir;
  private static TestCertificates ca;
  private static TestCertificates otherCa;
  private static TestCertificates.Issued client;
  private static TestCertificates.Issued foreignClient;
  private static SecureEtcdProcess etcd;
  private static Client root;

  @BeforeAll
  static void startEtcd() throws Exception {
    dir = Files.createTempDirectory("pointsman-etcd-tls");
    ca = TestCertificates.newAuthority(dir.resolve("certs"), "topo");
    otherCa = TestCertificates.newAuthority(dir.resolve("certs"), "other");
    TestCertificates.Issued server = ca.issue("etcd", "IP:127.0.0.1", "DNS:localhost");
    client = ca.issue("pointsman-worker");
    foreignClient = otherCa.issue("pointsman-worker");
    TestCertificates.Issued admin = ca.issue("admin");
    etcd = new SecureEtcdProcess(dir.resolve("etcd"), ca, server, admin).start();

    // the operator's setup: root, a pointsman role on the two topology roots, and a reader who
    // may look at the global topology but not take locks
    etcd.addPointsmanAccounts(PATHS, ROOT_PASSWORD, POINTSMAN_PASSWORD)
        .addGlobalReader("reader", READER_PASSWORD, "topology-reader", PATHS)
        .enableAuth();

    root = EtcdClients.create(settings().user("root").password(ROOT_PASSWORD).build());
    EtcdTopologyStore rootStore = new EtcdTopologyStore(root, PATHS);
    rootStore.create(rootStore.keys().keyspace("customer"), Keyspace.normal());
  }

  @AfterAll
  static void stopEtcd() throws Exception {
    if (root != null) {
      root.close();
    }
    if (etcd != null) {
      etcd.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** The right settings: the CA, a client certificate of that CA, and a user with its password. */
  private static EtcdOptions.Builder settings() {
    return EtcdOptions.builder().endpoints(etcd.endpoint()).caFile(ca.caCert())
        .certFile(client.cert()).keyFile(client.key());
  }

  private static LockOptions lockOptions() {
    return LockOptions.builder().action("SecurityTest").ttl(Duration.ofSeconds(10)).build();
  }

  @Test
  void theRightSettingsLockAndWriteTheTopology() {
    EtcdOptions options = settings().user("pointsman").password(POINTSMAN_PASSWORD).build();
    try (Client pointsman = EtcdClients.create(options); EtcdLockService locks = new EtcdLockService(pointsman, PATHS)) {
      EtcdTopologyStore store = new EtcdTopologyStore(pointsman, PATHS);
      HeldLock lock = locks.lockKeyspace("customer", lockOptions());
      try {
        store.create(store.keys().shard("customer", "-80"),
            Shard.of(KeyRange.ofShard("-80"), new TabletAlias("zone1", 100), true), LockSet.of(lock.token()));
        assertThat(store.listTablets("zone1")).isEmpty(); // the cell root is readable too
      } finally {
        lock.close();
      }
    }
    assertThat(keysUnder(PATHS.shard("customer", "-80"))).isEqualTo(1);
    assertThat(keysUnder(PATHS.keyspaceDir("customer") + "/locks/")).isZero();
  }

  @Test
  void noClientCertificateFailsAtOnceNamingTheCertificate() {
    EtcdOptions options = EtcdOptions.builder().endpoints(etcd.endpoint()).caFile(ca.caCert())
        .user("pointsman").password(POINTSMAN_PASSWORD).build();
    failsPromptlyWritingNothing(options, "-40", e -> assertThat(e.getMessage())
        .contains("etcd rejected this client's TLS certificate", "ETCD_CERT_FILE", "bad_certificate"));
  }

  @Test
  void aCertificateOfAnotherCaFailsAtOnceNamingTheCertificate() {
    EtcdOptions options = EtcdOptions.builder().endpoints(etcd.endpoint()).caFile(ca.caCert())
        .certFile(foreignClient.cert()).keyFile(foreignClient.key())
        .user("pointsman").password(POINTSMAN_PASSWORD).build();
    failsPromptlyWritingNothing(options, "40-80", e -> assertThat(e.getMessage())
        .contains("etcd rejected this client's TLS certificate", "ETCD_CERT_FILE", "bad_certificate"));
  }

  @Test
  void aWrongPasswordFailsAtOnceNamingTheCredentials() {
    EtcdOptions options = settings().user("pointsman").password("not-the-password").build();
    failsPromptlyWritingNothing(options, "80-c0", e -> {
      assertThat(e.getMessage()).contains("etcd refused the user name or password (ETCD_USER, ETCD_PASSWORD)");
      assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION); // not retried: settings must change
    });
  }

  @Test
  void aRoleWithoutTheLockPrefixFailsAtOnceNamingThePermission() {
    EtcdOptions options = settings().user("reader").password(READER_PASSWORD).build();
    failsPromptlyWritingNothing(options, "c0-", e -> {
      assertThat(e.getMessage()).contains("creating the lock key", "etcd denied access to a key",
          "role needs readwrite", "permission denied");
      assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    });
  }

  private void failsPromptlyWritingNothing(EtcdOptions options, String shard, Consumer<PointsmanException> names) {
    long start = System.nanoTime();
    try (Client pointsman = EtcdClients.create(options); EtcdLockService locks = new EtcdLockService(pointsman, PATHS)) {
      EtcdTopologyStore store = new EtcdTopologyStore(pointsman, PATHS);
      assertThatThrownBy(() -> {
        HeldLock lock = locks.lockKeyspace("customer", lockOptions());
        store.create(store.keys().shard("customer", shard),
            Shard.of(KeyRange.ofShard("-80"), new TabletAlias("zone1", 100), true), LockSet.of(lock.token()));
      }).isInstanceOfSatisfying(PointsmanException.class, names);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPT);
    assertThat(keysUnder(PATHS.keyspaceDir("customer") + "/locks/")).isZero();
    assertThat(keysUnder(PATHS.shard("customer", shard))).isZero();
  }

  private static long keysUnder(String prefix) {
    try {
      return root.getKVClient().get(EtcdClients.bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true)
          .build()).get(10, TimeUnit.SECONDS).getCount();
    } catch (Exception e) {
      throw new AssertionError("root could not count the keys under " + prefix, e);
    }
  }
}
