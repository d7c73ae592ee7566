package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.sandbox.cluster.HashVindex;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class KeyspaceIdsTest {
  @Test
  void columnValuesInEveryFormMapToTheHashVindexKeyspaceId() {
    // 1 → 166b40b44aba4bd6 in Vitess's hash vindex test vectors.
    assertThat(KeyRange.hex(KeyspaceIds.of("1".getBytes(StandardCharsets.US_ASCII)))).isEqualTo("166b40b44aba4bd6");
    byte[] five = HashVindex.keyspaceId(5);
    assertThat(KeyspaceIds.of(5L)).isEqualTo(five);
    assertThat(KeyspaceIds.of(5)).isEqualTo(five);
    assertThat(KeyspaceIds.of(BigInteger.valueOf(5))).isEqualTo(five);
    assertThat(KeyspaceIds.of("5".getBytes(StandardCharsets.US_ASCII))).isEqualTo(five);
    assertThat(KeyspaceIds.of("5")).isEqualTo(five);
  }

  @Test
  void unsignedAndNegativeValuesHashAsTheir64BitPattern() {
    BigInteger maxUnsigned = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    assertThat(KeyspaceIds.of(maxUnsigned)).isEqualTo(HashVindex.keyspaceId(-1L));
    assertThat(KeyspaceIds.of("18446744073709551615")).isEqualTo(HashVindex.keyspaceId(-1L));
    assertThat(KeyspaceIds.of("-1")).isEqualTo(HashVindex.keyspaceId(-1L));
  }

  @Test
  void nullAndNonNumbersHaveNoKeyspaceId() {
    assertThatThrownBy(() -> KeyspaceIds.of(null)).isInstanceOf(PointsmanException.class).hasMessageContaining("NULL");
    assertThatThrownBy(() -> KeyspaceIds.of("abc")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> KeyspaceIds.of(BigInteger.ONE.shiftLeft(64))).isInstanceOf(PointsmanException.class);
  }
}
