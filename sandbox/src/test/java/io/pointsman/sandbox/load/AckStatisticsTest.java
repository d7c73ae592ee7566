package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.sandbox.load.LoadRecord.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AckStatisticsTest {

  private static LoadRecord ok(long seq, long sent, long ack) {
    return new LoadRecord(seq, seq, sent, sent, ack, Outcome.OK, "");
  }

  @Test
  void longestGapIsBetweenConsecutiveAcksInAnswerOrderIgnoringFailures() {
    List<LoadRecord> records = List.of(
        ok(0, 0, 100), ok(1, 50, 1_000), ok(2, 60, 250),
        new LoadRecord(3, 3, 300, 300, 900, Outcome.ERROR, "boom"));

    AckStatistics s = AckStatistics.of(0, records);

    assertThat(s.longestGapBetweenAcks()).isEqualTo(Duration.ofNanos(750)); // 250 -> 1000; the error at 900 is no ack
    assertThat(s.maxLatency()).isEqualTo(Duration.ofNanos(950));
  }

  @Test
  void theGapBeforeTheFirstAckCountsFromTheStartOfTheRun() {
    AckStatistics s = AckStatistics.of(1_000, List.of(ok(0, 1_000, 5_000), ok(1, 5_000, 5_100)));

    assertThat(s.longestGapBetweenAcks()).isEqualTo(Duration.ofNanos(4_000));
  }

  @Test
  void latencyPercentilesUseNearestRank() {
    List<LoadRecord> records = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      records.add(ok(i, 0, i * 10L)); // latencies 10, 20, ..., 1000
    }

    AckStatistics s = AckStatistics.of(0, records);

    assertThat(s.p50Latency()).isEqualTo(Duration.ofNanos(500));
    assertThat(s.p99Latency()).isEqualTo(Duration.ofNanos(990));
    assertThat(s.maxLatency()).isEqualTo(Duration.ofNanos(1_000));
  }

  @Test
  void noAcksMeansNoGapAndNoLatency() {
    AckStatistics s = AckStatistics.of(0, List.of());

    assertThat(s.longestGapBetweenAcks()).isZero();
    assertThat(s.p99Latency()).isZero();
  }
}
