package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.errors.PointsmanException;
import io.pointsman.topo.model.KeyRange;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class HashVindexTest {
  /** The keyspace ids of 1..6 in Vitess's own hash vindex test (go/vt/vtgate/vindexes/hash_test.go). */
  @Test
  void keyspaceIdsMatchVitessVectors() {
    assertThat(KeyRange.hex(HashVindex.keyspaceId(1))).isEqualTo("166b40b44aba4bd6");
    assertThat(KeyRange.hex(HashVindex.keyspaceId(2))).isEqualTo("06e7ea22ce92708f");
    assertThat(KeyRange.hex(HashVindex.keyspaceId(3))).isEqualTo("4eb190c9a2fa169c");
    assertThat(KeyRange.hex(HashVindex.keyspaceId(4))).isEqualTo("d2fd8867d50d2dfe");
    assertThat(KeyRange.hex(HashVindex.keyspaceId(5))).isEqualTo("70bb023c810ca87a");
    assertThat(KeyRange.hex(HashVindex.keyspaceId(6))).isEqualTo("f098480ac4c4be71");
  }

  @Test
  void columnValuesInEveryFormMapToTheSameKeyspaceId() {
    byte[] five = HashVindex.keyspaceId(5);
    assertThat(HashVindex.keyspaceIdOf(5L)).isEqualTo(five);
    assertThat(HashVindex.keyspaceIdOf(5)).isEqualTo(five);
    assertThat(HashVindex.keyspaceIdOf(BigInteger.valueOf(5))).isEqualTo(five);
    assertThat(HashVindex.keyspaceIdOf("5".getBytes(StandardCharsets.US_ASCII))).isEqualTo(five);
    assertThat(HashVindex.keyspaceIdOf("5")).isEqualTo(five);
  }

  @Test
  void unsignedAndNegativeValuesHashAsTheir64BitPattern() {
    BigInteger maxUnsigned = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    assertThat(HashVindex.keyspaceIdOf(maxUnsigned)).isEqualTo(HashVindex.keyspaceId(-1L));
    assertThat(HashVindex.keyspaceIdOf("-1")).isEqualTo(HashVindex.keyspaceId(-1L));
  }

  @Test
  void nullAndNonNumbersHaveNoKeyspaceId() {
    assertThatThrownBy(() -> HashVindex.keyspaceIdOf(null)).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("NULL");
    assertThatThrownBy(() -> HashVindex.keyspaceIdOf("abc")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> HashVindex.keyspaceIdOf(BigInteger.ONE.shiftLeft(64))).isInstanceOf(PointsmanException.class);
  }
}
