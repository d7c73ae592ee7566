package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class KeyRangesTest {
  private static KeyRange r(String shard) {
    return KeyRange.ofShard(shard);
  }

  @Test
  void rangesIntersectWhenTheyShareAKeyspaceId() {
    assertThat(KeyRanges.intersect(r("-80"), r("-40"))).isTrue();
    assertThat(KeyRanges.intersect(r("-80"), r("40-80"))).isTrue();
    assertThat(KeyRanges.intersect(r("-80"), r("80-c0"))).as("end is exclusive").isFalse();
    assertThat(KeyRanges.intersect(r("80-"), r("c0-"))).isTrue();
    assertThat(KeyRanges.intersect(r("0"), r("c0-"))).as("an unsharded range covers all").isTrue();
    assertThat(KeyRanges.intersect(r("-40"), r("c0-"))).isFalse();
  }

  @Test
  void splitAndMergeCoverTheSameSpan() {
    assertThatCode(() -> KeyRanges.checkSameCoverage(List.of(r("-80"), r("80-")),
        List.of(r("c0-"), r("-40"), r("80-c0"), r("40-80")))).doesNotThrowAnyException();
    assertThatCode(() -> KeyRanges.checkSameCoverage(List.of(r("40-80")), List.of(r("40-60"), r("60-80"))))
        .doesNotThrowAnyException();
    assertThatCode(() -> KeyRanges.checkSameCoverage(List.of(r("-80")), List.of(r("-4000"), r("40-80"))))
        .as("80 and 8000 are the same bound").doesNotThrowAnyException();
  }

  @Test
  void gapsAndShortfallsAreRefused() {
    assertThatThrownBy(() -> KeyRanges.checkSameCoverage(List.of(r("-80"), r("80-")),
        List.of(r("-40"), r("80-c0"), r("c0-")))).hasMessageContaining("not contiguous");
    assertThatThrownBy(() -> KeyRanges.checkSameCoverage(List.of(r("-80"), r("80-")), List.of(r("-40"), r("40-80"))))
        .hasMessageContaining("do not cover the same key range");
  }

  @Test
  void shardsSortByStartThenEnd() {
    assertThat(List.of(r("80-"), r("-80"), r("40-80"), r("-40")).stream().sorted(SrvKeyspaceBuilder::compare))
        .containsExactly(r("-40"), r("-80"), r("40-80"), r("80-"));
  }
}
