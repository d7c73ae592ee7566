package io.pointsman.api.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MariadbGtidSetTest {

  @Test
  void parsesAndPrintsSortedByDomain() {
    MariadbGtidSet set = MariadbGtidSet.parse(" 2-5-9, 0-1-42,\n1-2-7");

    assertThat(set.toString()).isEqualTo("0-1-42,1-2-7,2-5-9");
    assertThat(set.gtids()).containsOnlyKeys(0L, 1L, 2L);
    assertThat(set.gtids().get(1L)).isEqualTo(new MariadbGtidSet.Gtid(1, 2, 7));
  }

  @Test
  void aDomainListedTwiceKeepsItsHighestSequence() {
    assertThat(MariadbGtidSet.parse("0-1-42,0-2-40").toString()).isEqualTo("0-1-42");
    assertThat(MariadbGtidSet.parse("0-1-40,0-2-42").toString()).isEqualTo("0-2-42");
  }

  @Test
  void sequenceNumbersAreUnsigned64Bit() {
    MariadbGtidSet max = MariadbGtidSet.parse("0-1-18446744073709551615");
    assertThat(max.toString()).isEqualTo("0-1-18446744073709551615");
    assertThat(max.contains(MariadbGtidSet.parse("0-1-9223372036854775808"))).isTrue();
    assertThat(MariadbGtidSet.parse("0-1-9223372036854775807").contains(max)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0-1", "0-1-2-3", "a-1-2", "0-x-2", "0-1-y", "-1-1-2", "4294967296-1-2", "0-4294967296-2",
      "0-1-18446744073709551616", "0-1-+5", "0-1-2;"})
  void rejectsMalformedPositionsWithInvalidArgument(String text) {
    assertThatThrownBy(() -> MariadbGtidSet.parse(text))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageStartingWith("invalid MariaDB GTID position");
  }

  @ParameterizedTest(name = "{0} contains {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      "0-1-42 | 0-1-42 | true",
      "0-1-42 | 0-1-41 | true",
      "0-1-42 | 0-1-43 | false",
      // the server id is ignored: after a failover the same domain continues under another server
      "0-2-42 | 0-1-40 | true",
      "0-1-40 | 0-2-42 | false",
      // multi-domain: every wanted domain must be present and far enough
      "0-1-42,1-2-7 | 0-1-42,1-2-7 | true",
      "0-1-42,1-2-7 | 1-2-7 | true",
      "0-1-42,1-2-7 | 0-1-40,1-2-8 | false",
      "0-1-42 | 0-1-42,1-2-1 | false",
      "0-1-42,1-2-7,5-3-1 | 0-1-1,5-9-1 | true",
  })
  void containsComparesSequencePerDomain(String have, String want, boolean expected) {
    assertThat(MariadbGtidSet.parse(have).contains(MariadbGtidSet.parse(want))).isEqualTo(expected);
  }

  @Test
  void emptyPositions() {
    assertThat(MariadbGtidSet.parse("").isEmpty()).isTrue();
    assertThat(MariadbGtidSet.parse("0-1-1").contains(MariadbGtidSet.empty())).isTrue();
    assertThat(MariadbGtidSet.empty().contains(MariadbGtidSet.parse("0-1-1"))).isFalse();
  }

  @Test
  void ofKeepsTheHighestSequencePerDomain() {
    MariadbGtidSet set = MariadbGtidSet.of(List.of(new MariadbGtidSet.Gtid(0, 1, 5), new MariadbGtidSet.Gtid(0, 2, 3)));
    assertThat(set).isEqualTo(MariadbGtidSet.parse("0-1-5"));
  }

  @Test
  void comparingAcrossFlavorsIsRefused() {
    assertThatThrownBy(() -> MariadbGtidSet.parse("0-1-1").contains(MysqlGtidSet.empty()))
        .hasMessageContaining("cannot compare a MariaDB GTID set with a MySQL56 one");
  }
}
