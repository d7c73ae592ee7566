package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HashVindexTest {

  /**
   * Vitess's own vectors, go/vt/vtgate/vindexes/hash_test.go (TestHashMap), decoded from its Go
   * string literals to hex; the last two come from TiDB's independent implementation of the same
   * vindex (util/vitess/vitess_hash_test.go), covering large and all-ones values.
   */
  @ParameterizedTest
  @CsvSource({
      "1, 166b40b44aba4bd6",
      "2, 06e7ea22ce92708f",
      "3, 4eb190c9a2fa169c",
      "4, d2fd8867d50d2dfe",
      "5, 70bb023c810ca87a",
      "6, f098480ac4c4be71",
      "30375298039, 031265661e5f1133",
      "1123, 031b565d41bdf8ca",
      "116, 1e1788ff0fde093c",
  })
  void computesVitessKeyspaceIds(long value, String expectedHex) {
    assertThat(HashVindex.keyspaceIdHex(value)).isEqualTo(expectedHex);
  }

  @Test
  void mapsTheMaximumUnsignedValueLikeMinusOne() {
    // Vitess maps a signed column through its two's complement: -1 is 2^64-1 (TiDB: 355550b2150e2451).
    assertThat(HashVindex.keyspaceIdHex(-1L)).isEqualTo("355550b2150e2451");
    assertThat(HashVindex.keyspaceIdHex(Long.parseUnsignedLong("18446744073709551615")))
        .isEqualTo("355550b2150e2451");
  }

  @Test
  void reverseMapsKeyspaceIdsBackToValues() {
    for (long v : new long[] {0, 1, 42, 1L << 40, Long.MAX_VALUE, -7}) {
      assertThat(HashVindex.reverse(HashVindex.keyspaceId(v))).isEqualTo(v);
    }
  }

  @Test
  void placesSampleCustomersInTheirVitessShards() {
    // customer_id 1 -> 166b... (below 0x80), 4 -> d2fd... (at or above 0x80).
    assertThat(HashVindex.inKeyRange(1, KeyRange.ofShard("-80"))).isTrue();
    assertThat(HashVindex.inKeyRange(4, KeyRange.ofShard("80-"))).isTrue();
    assertThat(HashVindex.inKeyRange(4, KeyRange.ofShard("c0-"))).isTrue();
    assertThat(HashVindex.inKeyRange(4, KeyRange.ofShard("80-c0"))).isFalse();
  }

  @Test
  void refusesKeyspaceIdsOfTheWrongLength() {
    assertThatThrownBy(() -> HashVindex.reverse(new byte[16]))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("8 bytes");
  }
}
