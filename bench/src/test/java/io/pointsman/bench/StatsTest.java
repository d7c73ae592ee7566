package io.pointsman.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void percentilesAreNearestRankOverTheSortedSamples() {
    Stats s = Stats.ofDurations(List.of(Duration.ofMillis(40), Duration.ofMillis(10), Duration.ofMillis(30),
        Duration.ofMillis(20)));

    assertThat(s.count()).isEqualTo(4);
    assertThat(s.p50()).isEqualTo(Duration.ofMillis(20));
    assertThat(s.percentile(75)).isEqualTo(Duration.ofMillis(30));
    assertThat(s.p99()).isEqualTo(Duration.ofMillis(40));
    assertThat(s.max()).isEqualTo(Duration.ofMillis(40));
    assertThat(s.summaryMillis()).isEqualTo("20 / 40 / 40");
  }

  @Test
  void p99OfAHundredSamplesIsTheSecondLargest() {
    Stats s = Stats.ofNanos(java.util.stream.LongStream.rangeClosed(1, 100).boxed().toList());

    assertThat(s.p99().toNanos()).isEqualTo(99);
    assertThat(s.max().toNanos()).isEqualTo(100);
  }

  @Test
  void theMeanIsTheSumOverTheCountAndZeroWithoutSamples() {
    Stats s = Stats.ofNanos(List.of(1_000L, 2_000L, 9_000L));

    assertThat(s.mean()).isEqualTo(Duration.ofNanos(4_000));
    assertThat(s.p50()).isEqualTo(Duration.ofNanos(2_000));
    assertThat(Stats.ofNanos(List.of()).mean()).isEqualTo(Duration.ZERO);
  }

  @Test
  void subMillisecondValuesKeepTwoDecimals() {
    assertThat(Stats.millis(Duration.ofNanos(1_234_000))).isEqualTo("1.23");
    assertThat(Stats.millis(Duration.ofMillis(1234))).isEqualTo("1234");
  }

  @Test
  void noSamplesOrAPercentileOutOfRangeIsAnError() {
    assertThatThrownBy(() -> Stats.ofNanos(List.of()).p50()).hasMessageContaining("no samples");
    assertThatThrownBy(() -> Stats.ofNanos(List.of(1L)).percentile(0)).hasMessageContaining("(0, 100]");
    assertThat(Stats.ofNanos(List.of()).summaryMillis()).isEqualTo("–");
  }

  @Test
  void countsAreReadAsCountsByTheSameRanks() {
    Stats s = Stats.ofCounts(List.of(73L, 75L, 74L, 76L));

    assertThat(s.p50Count()).isEqualTo(74);
    assertThat(s.maxCount()).isEqualTo(76);
  }
}
