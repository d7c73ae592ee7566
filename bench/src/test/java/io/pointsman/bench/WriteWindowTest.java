package io.pointsman.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.sandbox.load.LoadRecord;
import io.pointsman.sandbox.load.LoadRecord.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriteWindowTest {
  private static final long MS = 1_000_000L;

  private static LoadRecord ok(long seq, long sentMs, long ackMs) {
    return new LoadRecord(seq, seq, sentMs * MS, sentMs * MS, ackMs * MS, Outcome.OK, "");
  }

  @Test
  void wIsTheLongestAckGapOverlappingTheSwitchOnly() {
    List<LoadRecord> records = List.of(
        ok(0, 0, 5),
        ok(1, 10, 500),     // a gap of 495 ms before the switch starts at 1000: not counted
        ok(2, 1000, 1010),
        ok(3, 1020, 1400),  // buffered during the switch: 390 ms gap, 380 ms latency
        ok(4, 1410, 1420),
        ok(5, 3000, 3010)); // after the switch ends at 1500, but the gap 1420→3010 starts inside it

    WriteWindow w = WriteWindow.of(records, 1000 * MS, 1500 * MS);

    assertThat(w.longestAckGap()).isEqualTo(Duration.ofMillis(1590));
    assertThat(w.longestWrite()).isEqualTo(Duration.ofMillis(380));
    assertThat(w.errors()).isZero();
    assertThat(w.writes()).isEqualTo(3);
  }

  @Test
  void failedWritesInFlightCountAsErrorsAndNotAsAcks() {
    List<LoadRecord> records = List.of(
        ok(0, 0, 10),
        new LoadRecord(1, 1, 20 * MS, 20 * MS, 900 * MS, Outcome.ERROR, "buffer window passed"),
        ok(2, 30, 100));

    WriteWindow w = WriteWindow.of(records, 50 * MS, 200 * MS);

    assertThat(w.errors()).isEqualTo(1);
    assertThat(w.longestAckGap()).isEqualTo(Duration.ofMillis(90));
    assertThat(w.longestWrite()).isEqualTo(Duration.ofMillis(70));
  }
}
