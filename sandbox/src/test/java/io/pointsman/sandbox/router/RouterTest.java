package io.pointsman.sandbox.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.testing.LogWatch;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.sandbox.cluster.HashVindex;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RouterTest {
  private static final String INSERT = "INSERT INTO customer (customer_id, email) VALUES (?, ?)";
  private static final Duration WINDOW = Duration.ofSeconds(10);

  private TopologyFixture topo;
  private Router router;
  private ExecutorService async;

  @BeforeEach
  void setUp() {
    topo = new TopologyFixture();
    async = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "router-test-client");
      t.setDaemon(true);
      return t;
    });
  }

  @AfterEach
  void tearDown() throws Exception {
    async.shutdownNow();
    if (router != null) {
      router.close();
    }
    topo.close();
  }

  private Router startRouter(Duration window) throws InterruptedException {
    router = topo.router(window);
    assertThat(router.awaitTopology(Duration.ofSeconds(10))).as("router read the topology").isTrue();
    return router;
  }

  private static Write insert(long id) {
    return Write.of("customer", id, INSERT, id, "c" + id + "@test");
  }

  /** Two unsharded keyspaces ks1 and ks2 (shard 0 each); every form of customer routed to ks1. */
  private Map<String, String> twoKeyspacesRoutedToKs1() throws Exception {
    String db1 = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    String db2 = topo.addKeyspace("ks2", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks1", "ks1", "ks2"));
    return Map.of("ks1", db1, "ks2", db2);
  }

  @Test
  void routesEachCustomerToTheShardWhoseKeyRangeHoldsItsHash() throws Exception {
    Map<String, String> dbs = topo.addKeyspace("customer", TopologyFixture.shardedCustomer(), "-80", "80-");
    topo.publishServing();
    startRouter(WINDOW);

    // Keyspace ids from Vitess's hash vindex test: 1 166b.., 2 06e7.., 3 4eb1.., 4 d2fd.., 5 70bb.., 6 f098..
    Map<Long, String> expected = Map.of(1L, "-80", 2L, "-80", 3L, "-80", 4L, "80-", 5L, "-80", 6L, "80-");
    for (long id = 1; id <= 40; id++) {
      String shard = expected.getOrDefault(id,
          HashVindex.inKeyRange(id, KeyRange.ofShard("-80")) ? "-80" : "80-");
      String other = shard.equals("-80") ? "80-" : "-80";

      WriteResult r = router.execute(insert(id));

      assertThat(r.target().shard()).as("shard of customer %d", id).isEqualTo(shard);
      assertThat(r.updateCount()).isEqualTo(1);
      assertThat(topo.count(dbs.get(shard), "customer_id = " + id)).as("customer %d in %s", id, shard).isEqualTo(1);
      assertThat(topo.count(dbs.get(other), "customer_id = " + id)).as("customer %d in %s", id, other).isZero();
    }
  }

  @Test
  void routesToReshardedShardsOnceSrvKeyspaceReferencesThem() throws Exception {
    Map<String, String> dbs = topo.addKeyspace("customer", TopologyFixture.shardedCustomer(), "-80", "80-");
    topo.publishServing();
    startRouter(WINDOW);
    assertThat(router.execute(insert(1)).target().shard()).isEqualTo("-80");

    Map<String, String> targets = topo.addShards("customer", false, "-40", "40-80");
    topo.serve("customer", "-40", "40-80", "80-");
    await().atMost(Duration.ofSeconds(10)).ignoreException(RouterException.class) // held while it loads
        .until(() -> router.resolve("customer", TabletType.PRIMARY, 2).shard().equals("-40"));

    // 2 hashes to 06e7.., 3 to 4eb1..: both were -80's, now one shard each.
    assertThat(router.execute(insert(2)).target().shard()).isEqualTo("-40");
    assertThat(router.execute(insert(3)).target().shard()).isEqualTo("40-80");
    assertThat(topo.count(targets.get("-40"), "customer_id = 2")).isEqualTo(1);
    assertThat(topo.count(targets.get("40-80"), "customer_id = 3")).isEqualTo(1);
    assertThat(topo.count(dbs.get("-80"), "customer_id IN (2, 3)")).isZero();
  }

  @Test
  void followsARoutingRuleChangeWithoutRestart() throws Exception {
    Map<String, String> dbs = twoKeyspacesRoutedToKs1();
    startRouter(WINDOW);
    assertThat(router.execute(insert(1)).target().keyspace()).isEqualTo("ks1");

    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2"));
    await().atMost(Duration.ofSeconds(10)).ignoreException(RouterException.class) // held while it loads
        .until(() -> router.resolve("customer", TabletType.PRIMARY, 2).keyspace().equals("ks2"));
    WriteResult r = router.execute(insert(2));

    assertThat(r.target().keyspace()).isEqualTo("ks2");
    assertThat(topo.count(dbs.get("ks2"), "customer_id = 2")).isEqualTo(1);
    assertThat(topo.count(dbs.get("ks1"), "customer_id = 2")).isZero();
    List<String> viaReplicaRule = router.query(Read.of("customer", TabletType.REPLICA, 2,
        "SELECT email FROM customer WHERE customer_id = ?", 2), rs -> rs.getString(1));
    assertThat(viaReplicaRule).containsExactly("c2@test");
  }

  @Test
  void routesBySrvVSchemaNotByTheGlobalRoutingRulesAlone() throws Exception {
    Map<String, String> dbs = twoKeyspacesRoutedToKs1();
    startRouter(WINDOW);
    long before = router.topologyVersion();

    // Only the global record changes; SrvVSchema is not rebuilt, so vtgate would not move either.
    topo.store().upsert(topo.store().keys().routingRules(),
        c -> RoutingRules.fromMap(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2")), TopologyStore.UNLOCKED);
    await().atMost(Duration.ofSeconds(10)).until(() -> router.topologyVersion() > before);

    assertThat(router.execute(insert(3)).target().keyspace()).isEqualTo("ks1");
    assertThat(topo.count(dbs.get("ks1"), "customer_id = 3")).isEqualTo(1);
  }

  @Test
  void reportsWhenTheServedRulesDifferFromTheGlobalOnesAndWhenTheyMatchAgain() throws Exception {
    twoKeyspacesRoutedToKs1();
    try (LogWatch log = LogWatch.of("io.pointsman.sandbox.router.TopologyFollower")) {
      startRouter(WINDOW);

      // The global record alone changes (the follower then compares), and then another record
      // (nothing compared changed: no report), and then SrvVSchema is rebuilt to match.
      topo.store().upsert(topo.store().keys().routingRules(),
          c -> RoutingRules.fromMap(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2")), TopologyStore.UNLOCKED);
      await().atMost(Duration.ofSeconds(10)).until(() -> log.count("routing rules differ from the global") == 1);
      long before = router.topologyVersion();
      topo.denyTables("ks1", "0", "other");
      await().atMost(Duration.ofSeconds(10)).until(() -> router.topologyVersion() > before);
      topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2"));
      await().atMost(Duration.ofSeconds(10)).until(() -> log.count("routing rules match the global") == 1);

      assertThat(log.count("routing rules differ from the global")).isEqualTo(1);
      assertThat(router.resolve("customer", TabletType.PRIMARY, 4).keyspace()).isEqualTo("ks2");
    }
  }

  @Test
  void deniedTableHoldsWritesUntilTheDenialIsLifted() throws Exception {
    String db = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    startRouter(WINDOW);
    topo.denyTables("ks1", "0", "customer");
    awaitHeld("customer");

    Future<WriteResult> write = async.submit(() -> router.execute(insert(5)));
    await().atMost(Duration.ofSeconds(5)).until(() -> router.bufferedNow() == 1);
    Duration held = Duration.ofMillis(300);
    await().during(held).atMost(held.plusSeconds(2)).until(() -> !write.isDone());
    assertThat(topo.count(db, "customer_id = 5")).as("not sent while denied").isZero();

    topo.allowTables("ks1", "0", "customer");
    WriteResult r = write.get(10, TimeUnit.SECONDS);

    assertThat(r.buffered()).isGreaterThanOrEqualTo(held);
    assertThat(r.attempts()).as("sent once, after the denial was lifted").isEqualTo(1);
    assertThat(topo.count(db, "customer_id = 5")).isEqualTo(1);
    assertThat(router.bufferedNow()).isZero();
  }

  @Test
  void deniedTableFailsAfterTheBufferWindowNamingTableAndShard() throws Exception {
    String db = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    startRouter(Duration.ofSeconds(1));
    topo.denyTables("ks1", "0", "customer");
    awaitHeld("customer");

    long start = System.nanoTime();
    assertThatThrownBy(() -> router.execute(insert(6)))
        .isInstanceOfSatisfying(RouterException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
          assertThat(e.table()).isEqualTo("customer");
          assertThat(e.keyspace()).contains("ks1");
          assertThat(e.shard()).contains("0");
          assertThat(e.getMessage()).contains("customer", "ks1/0", "denied", "buffer window");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(topo.count(db, "customer_id = 6")).isZero();
  }

  @Test
  void queryServiceDisabledHoldsWritesUntilReenabled() throws Exception {
    String db = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    startRouter(WINDOW);
    topo.setQueryServiceDisabled("ks1", "0", true);
    awaitHeld("customer");

    Future<WriteResult> write = async.submit(() -> router.execute(insert(8)));
    await().atMost(Duration.ofSeconds(5)).until(() -> router.bufferedNow() == 1);
    assertThat(topo.count(db, "customer_id = 8")).isZero();
    topo.setQueryServiceDisabled("ks1", "0", false);

    assertThat(write.get(10, TimeUnit.SECONDS).attempts()).isEqualTo(1);
    assertThat(topo.count(db, "customer_id = 8")).isEqualTo(1);
  }

  @Test
  void primaryRefusalIsBufferedAndRetriedAfterATopologyChange() throws Exception {
    Map<String, String> dbs = twoKeyspacesRoutedToKs1();
    startRouter(WINDOW);
    String db1 = dbs.get("ks1");
    topo.sql("CREATE TRIGGER `" + db1 + "`.customer_deny BEFORE INSERT ON `" + db1 + "`.customer FOR EACH ROW "
        + "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '" + WriteBarrier.DENIED_MESSAGE_PREFIX + " on customer'");

    Future<WriteResult> write = async.submit(() -> router.execute(insert(7)));
    await().atMost(Duration.ofSeconds(5)).until(() -> router.bufferedNow() == 1);
    assertThat(topo.count(db1, "customer_id = 7")).isZero();

    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2"));
    WriteResult r = write.get(10, TimeUnit.SECONDS);

    assertThat(r.target().keyspace()).isEqualTo("ks2");
    // Every topology change is a retry: the global RoutingRules write alone sends it to ks1 again.
    assertThat(r.attempts()).as("refused by ks1's primary, then sent to ks2").isGreaterThanOrEqualTo(2);
    assertThat(topo.count(dbs.get("ks2"), "customer_id = 7")).isEqualTo(1);
    assertThat(topo.count(db1, "customer_id = 7")).isZero();
  }

  @Test
  void unknownTableFailsAtOnceWithoutBuffering() throws Exception {
    topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0");
    topo.publishServing();
    startRouter(WINDOW);

    long start = System.nanoTime();
    assertThatThrownBy(() -> router.execute(Write.of("nosuch", 1, "INSERT INTO nosuch VALUES (1)")))
        .isInstanceOfSatisfying(RouterException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
          assertThat(e.getMessage()).contains("nosuch");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WINDOW);
  }

  @Test
  void statementRejectedByMysqlIsReportedNotRetried() throws Exception {
    topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0");
    topo.publishServing();
    startRouter(WINDOW);
    router.execute(insert(9));

    assertThatThrownBy(() -> router.execute(insert(9)))
        .isInstanceOfSatisfying(RouterException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("ks1/0", "SQLSTATE 23000");
        });
    assertThat(router.bufferedNow()).isZero();
  }

  /** Waits until the router has seen a change that holds writes to the table back. */
  private void awaitHeld(String table) {
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThatThrownBy(() -> router.resolve(table, TabletType.PRIMARY, 1))
            .isInstanceOf(RouterException.class).hasMessageContaining("held"));
  }
}
