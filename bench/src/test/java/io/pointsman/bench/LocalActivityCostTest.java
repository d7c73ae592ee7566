package io.pointsman.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalActivityCostTest {

  /** Each call's own run, and the gap from each call's end to the next one's start: the SDK's share. */
  @Test
  void measureTakesEachCallsRunAndTheGapsBetweenThem() {
    LocalActivityCost.Point p = LocalActivityCost.measure(
        List.of(new long[] {1_000, 3_000}, new long[] {4_000, 6_500}, new long[] {10_000, 12_000}),
        Duration.ofNanos(2_000));

    assertThat(p.waited()).isEqualTo(Duration.ofNanos(2_000));
    assertThat(p.run().samples()).containsExactly(2_000, 2_000, 2_500);
    assertThat(p.gap().samples()).containsExactly(1_000, 3_500);
    assertThat(p.gap().mean()).isEqualTo(Duration.ofNanos(2_250));
  }
}
