package io.pointsman.api.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"0", "-80", "80-", "80-c0", "-", "40-80", "0c-0d", "shard_a"})
  void acceptsVitessShardNames(String shard) {
    assertThat(Names.shard(shard)).isEqualTo(shard);
  }

  @ParameterizedTest
  @ValueSource(strings = {"80-40", "80-80", "8G-", "-80-", "80-C0", "", "a/b", "-80 ", "x-y"})
  void rejectsBadShardNames(String shard) {
    assertThatThrownBy(() -> Names.shard(shard))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("shard name");
  }

  @ParameterizedTest
  @ValueSource(strings = {"commerce", "customer_2", "ks-1"})
  void acceptsKeyspaceNames(String ks) {
    assertThat(Names.keyspace(ks)).isEqualTo(ks);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "../etc", "ks.t", "k s", "ks`", "ks'", "kś", "ks\n"})
  void rejectsKeyspaceNamesThatCouldEscapeAKeyOrAQuote(String ks) {
    assertThatThrownBy(() -> Names.keyspace(ks)).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("keyspace name");
  }

  @ParameterizedTest
  @ValueSource(strings = {"t`; DROP TABLE x; --", "a.b", "a/b", "a b", "\"t\"", "ta'ble", "ｔａｂｌｅ"})
  void rejectsHostileTableNames(String table) {
    assertThatThrownBy(() -> Names.table(table)).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("table name");
  }

  @org.junit.jupiter.api.Test
  void rejectsOverlongNamesNamingTheLimit() {
    assertThatThrownBy(() -> Names.table("t".repeat(65))).hasMessageContaining("limit is 64");
  }

  @org.junit.jupiter.api.Test
  void controlCharactersNeverReachTheMessageRaw() {
    assertThatThrownBy(() -> Names.cell("a\u0001b")).hasMessageContaining("\\u0001").hasMessageNotContaining("\u0001");
  }

  @org.junit.jupiter.api.Test
  void hexBoundsCompareLeftAligned() {
    assertThat(Names.compareHexBounds("8", "80")).isZero();
    assertThat(Names.compareHexBounds("40", "8")).isNegative();
    assertThat(Names.compareHexBounds("c0", "80")).isPositive();
  }
}
