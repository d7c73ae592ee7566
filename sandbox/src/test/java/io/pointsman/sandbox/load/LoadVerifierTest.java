package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.TopologyFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LoadVerifierTest {
  private TopologyFixture topo;
  private Router router;
  private String db;

  @BeforeEach
  void setUp() throws Exception {
    topo = new TopologyFixture();
    db = topo.addKeyspace("ks1", TopologyFixture.unshardedCustomer(), "0").get("0");
    topo.publishServing();
    router = topo.router(Duration.ofSeconds(10));
    assertThat(router.awaitTopology(Duration.ofSeconds(10))).isTrue();
  }

  @AfterEach
  void tearDown() throws Exception {
    router.close();
    topo.close();
  }

  private LoadLog run(int writes) throws Exception {
    LoadOptions options = LoadOptions.builder().ratePerSecond(200).writers(4)
        .duration(Duration.ofMillis(writes * 5L)).writes(WriteFactory.customerInserts("customer", 100)).build();
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
}
