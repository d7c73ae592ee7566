package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.TabletType;
import io.pointsman.sandbox.router.TopologyFixture;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LoadVerifierTest extends OneShardRouterTest {

  private LoadLog run(int writes) throws Exception {
    return run(writes, 100);
  }

  private LoadLog run(int writes, long firstKey) throws Exception {
    LoadOptions options = LoadOptions.builder().ratePerSecond(200).writers(4)
        .duration(Duration.ofMillis(writes * 5L)).writes(WriteFactory.customerInserts("customer", firstKey)).build();
    try (LoadWriter load = LoadWriter.start(router, options)) {
      assertThat(load.awaitDone(Duration.ofSeconds(20))).isTrue();
      return load.loadLog();
    }
  }

  @Test
  void aCompleteRunVerifiesClean() throws Exception {
    LoadLog log = run(20);

    VerificationReport report = LoadVerifier.forCustomers(router).verify(log);

    assertThat(report.acknowledged()).isEqualTo(20);
    assertThat(report.lostNothing()).as(report.summary()).isTrue();
    assertThat(report.rowsFound()).isEqualTo(20);
    assertThat(report.longestGapBetweenAcks()).isPositive();
  }

  @Test
  void findsAcknowledgedWritesThatAreMissingOrDuplicated() throws Exception {
    // Without a primary key a row can be there twice, which is what the verifier must notice.
    topo.sql("ALTER TABLE `" + db + "`.customer DROP PRIMARY KEY");
    LoadLog log = run(20);
    topo.sql("DELETE FROM `" + db + "`.customer WHERE customer_id = 103");
    topo.sql("INSERT INTO `" + db + "`.customer SELECT * FROM `" + db + "`.customer WHERE customer_id = 110");

    VerificationReport report = LoadVerifier.forCustomers(router).verify(log);

    assertThat(report.acknowledged()).isEqualTo(20);
    assertThat(report.missing()).containsExactly(103L);
    assertThat(report.duplicated()).containsExactly(110L);
    assertThat(report.rowsFound()).isEqualTo(20);
    assertThat(report.lostNothing()).isFalse();
  }

  @Test
  void aRunWithoutAnAcknowledgedWriteIsNoPassAndNamesItsErrors() {
    LoadLog log = new LoadLog(System.nanoTime());
    long t = System.nanoTime();
    log.add(new LoadRecord(0, 100, t, t, t, LoadRecord.Outcome.ERROR, "Duplicate entry '100' for key 'PRIMARY'"));
    log.add(new LoadRecord(1, 101, t, t, t, LoadRecord.Outcome.ERROR, "Duplicate entry '101' for key 'PRIMARY'"));
    log.add(new LoadRecord(2, 102, t, t, t, LoadRecord.Outcome.ERROR, "held for the buffer window"));

    VerificationReport report = LoadVerifier.forCustomers(router).verify(log);

    assertThat(report.acknowledged()).isZero();
    assertThat(report.missing()).isEmpty();
    assertThat(report.duplicated()).isEmpty();
    assertThat(report.lostNothing()).as("nothing was verified, so nothing is proven").isFalse();
    assertThat(report.summary()).contains("0 acknowledged (nothing verified)").contains("3 failed")
        .contains("Duplicate entry '100'").contains("Duplicate entry '101'").contains("held for the buffer window");
  }

  /**
   * The customer table keeps its primary key here, so a copy can only be extra on another shard:
   * on a second shard of the serving side, or on the side that does not serve the key.
   */
  @Test
  void findsACopyOnASecondShardOrOnTheSideThatDoesNotServeIt() throws Exception {
    Map<String, String> served = topo.addKeyspace("ks2", TopologyFixture.shardedCustomer(), "-80", "80-");
    topo.publishServing();
    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks2", "ks1", "ks2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> router.resolve("customer", TabletType.PRIMARY, 1).keyspace()
        .equals("ks2"));
    LoadLog log = run(20, 1000);
    VerificationReport clean = LoadVerifier.forCustomers(router).verify(log);
    assertThat(clean.lostNothing()).as(clean.summary()).isTrue();

    long onSecondShard = 1003;
    String home = router.resolve("customer", TabletType.PRIMARY, onSecondShard).shard();
    String other = home.equals("-80") ? "80-" : "-80";
    copy(served.get(home), served.get(other), onSecondShard);
    long replicatedLike = 1007; // one copy on the non-serving side, where a stream would put it
    copy(served.get(router.resolve("customer", TabletType.PRIMARY, replicatedLike).shard()), db, replicatedLike);

    VerificationReport report = LoadVerifier.forCustomers(router).verify(log);

    assertThat(report.duplicated()).as(report.summary()).containsExactly(onSecondShard);
    assertThat(report.strayCopies()).containsExactly("key " + onSecondShard + ": a row on ks2/" + other
        + ", whose key range does not hold it (served by ks2/" + home + ")");
    assertThat(report.missing()).isEmpty();
    assertThat(report.lostNothing()).isFalse();

    // The non-serving side with the copy on a shard that cannot hold it: ks2 serves no more, ks1 does.
    topo.sql("DELETE FROM `" + served.get(other) + "`.customer WHERE customer_id = " + onSecondShard);
    long twiceOnTheOtherSide = 1011;
    String homeOf = router.resolve("customer", TabletType.PRIMARY, twiceOnTheOtherSide).shard();
    copy(served.get(homeOf), db, twiceOnTheOtherSide);
    copy(served.get(homeOf), db, 1003);
    copy(served.get(homeOf), served.get(homeOf.equals("-80") ? "80-" : "-80"), twiceOnTheOtherSide);
    topo.setRoutingRules(TopologyFixture.allFormsTo("customer", "ks1", "ks1", "ks2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> router.resolve("customer", TabletType.PRIMARY, 1).keyspace()
        .equals("ks1"));

    VerificationReport back = LoadVerifier.forCustomers(router).verify(filtered(log, 1003, 1007, 1011));

    assertThat(back.duplicated()).as(back.summary()).containsExactly(twiceOnTheOtherSide);
    assertThat(back.missing()).isEmpty();
    assertThat(back.lostNothing()).isFalse();
  }

  private void copy(String fromDb, String toDb, long key) throws Exception {
    topo.sql("INSERT INTO `" + toDb + "`.customer SELECT * FROM `" + fromDb + "`.customer WHERE customer_id = " + key);
  }

  /** The log with only the writes of these keys (those that exist on ks1 too). */
  private static LoadLog filtered(LoadLog log, long... keys) {
    LoadLog out = new LoadLog(log.startNanos());
    for (LoadRecord r : log.records()) {
      for (long k : keys) {
        if (r.key() == k) {
          out.add(r);
        }
      }
    }
    return out;
  }
}
