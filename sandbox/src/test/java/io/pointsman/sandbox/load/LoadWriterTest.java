package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LoadWriterTest extends OneShardRouterTest {

  @Test
  void sendsNumberedWritesOnAFixedScheduleAndRecordsEachOne() throws Exception {
    LoadOptions options = LoadOptions.builder().ratePerSecond(100).writers(4).duration(Duration.ofSeconds(1))
        .writes(WriteFactory.customerInserts("customer", 5_000)).build();

    List<LoadRecord> records;
    try (LoadWriter load = LoadWriter.start(router, options)) {
      assertThat(load.awaitDone(Duration.ofSeconds(20))).isTrue();
      records = load.loadLog().records();
      long start = load.loadLog().startNanos();
      assertThat(records).extracting(LoadRecord::seq).containsExactlyElementsOf(LongStream.range(0, 100).boxed().toList());
      for (LoadRecord r : records) {
        assertThat(r.dueNanos()).as("due time of write %d", r.seq()).isEqualTo(start + r.seq() * 10_000_000L);
        assertThat(r.sentNanos()).isGreaterThanOrEqualTo(r.dueNanos());
        assertThat(r.ackNanos()).isGreaterThanOrEqualTo(r.sentNanos());
        assertThat(r.key()).isEqualTo(5_000 + r.seq());
      }
      assertThat(records).allMatch(LoadRecord::acknowledged, "acknowledged");
    }

    assertThat(topo.count(db, "customer_id BETWEEN 5000 AND 5099")).isEqualTo(100);
    try (var c = topo.admin(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT email FROM `" + db + "`.customer WHERE customer_id = 5042")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("w42@load");
    }
  }

  @Test
  void closeStopsARunBeforeItsDuration() throws Exception {
    LoadOptions options = LoadOptions.builder().ratePerSecond(20).writers(2).duration(Duration.ofSeconds(60))
        .writes(WriteFactory.customerInserts("customer", 9_000)).build();
    LoadWriter load = LoadWriter.start(router, options);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.loadLog().acknowledged() >= 5);

    load.close();

    assertThat(load.awaitDone(Duration.ZERO)).as("writers finished when close returned").isTrue();
    int answered = load.loadLog().size();
    assertThat(answered).isLessThan(1200);
    assertThat(topo.count(db, "customer_id >= 9000")).isEqualTo(load.loadLog().acknowledged());
  }
}
