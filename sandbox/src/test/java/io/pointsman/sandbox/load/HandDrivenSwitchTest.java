package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.TopologyFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MoveTables-style switch of {@code customer} from ks1 to ks2 done by hand under constant load,
 * in the order pointsman's SwitchTraffic does it: deny writes on the source (shard record, then the
 * primary itself), catch the target up, flip routing, allow writes on the target.
 */
@Timeout(90)
class HandDrivenSwitchTest {
  private static final Logger log = LoggerFactory.getLogger(HandDrivenSwitchTest.class);
  private static final Duration WINDOW = Duration.ofSeconds(10);

  private TopologyFixture topo;
  private Router router;

  @BeforeEach
  void setUp() {
    topo = new TopologyFixture();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (router != null) {
      router.close();
    }
    topo.close();
  }

  @Test
  void noAcknowledgedWriteIsLostAcrossASwitchUnderLoad() throws Exception {
    String source = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    String target = topo.addKeyspace("ks2", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    // As MoveTables create leaves it: everything routed to the source, the target denied.
    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks1", "ks1", "ks2"));
    topo.denyTables("ks2", "0", "customer");
    router = topo.router(WINDOW);
    assertThat(router.awaitTopology(Duration.ofSeconds(10))).isTrue();

    LoadOptions options = LoadOptions.builder().ratePerSecond(50).writers(16).duration(Duration.ofSeconds(4))
        .writes(WriteFactory.customerInserts("customer", 1_000)).build();
    LoadLog loadLog;
    try (LoadWriter load = LoadWriter.start(router, options)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> load.loadLog().acknowledged() >= 50);

      topo.denyTables("ks1", "0", "customer");
      // The barrier on the source primary: CREATE TRIGGER waits for statements already running on
      // the table and makes every later insert fail with 45000, so nothing lands after the copy.
      topo.sql("CREATE TRIGGER `" + source + "`.customer_deny BEFORE INSERT ON `" + source + "`.customer "
          + "FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '" + WriteBarrier.DENIED_MESSAGE_PREFIX
          + " on customer'");
      topo.sql("INSERT INTO `" + target + "`.customer SELECT * FROM `" + source + "`.customer");
      topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2"));
      topo.allowTables("ks2", "0", "customer");

      assertThat(load.awaitDone(Duration.ofSeconds(40))).isTrue();
      loadLog = load.loadLog();
    }

    VerificationReport report = LoadVerifier.forCustomers(router).verify(loadLog);
    log.info("switch under load: {}", report.summary());

    assertThat(report.attempted()).isEqualTo(options.totalWrites());
    assertThat(report.errors()).as(report.summary()).isEmpty();
    assertThat(report.acknowledged()).isEqualTo(200);
    assertThat(report.missing()).as(report.summary()).isEmpty();
    assertThat(report.duplicated()).as(report.summary()).isEmpty();
    assertThat(topo.count(target, "customer_id >= 1000")).as("no stray rows on the target").isEqualTo(200);
    assertThat(report.longestGapBetweenAcks()).isPositive().isLessThan(WINDOW);
  }
}
