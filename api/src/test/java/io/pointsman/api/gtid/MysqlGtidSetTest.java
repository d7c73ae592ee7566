package io.pointsman.api.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MysqlGtidSetTest {
  private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String B = "8f0d7a1c-0000-11ee-8000-0242ac120002";

  @Test
  void parsesWhatMysqlPrintsIncludingNewlinesAndUppercase() {
    MysqlGtidSet set = MysqlGtidSet.parse("8F0D7A1C-0000-11EE-8000-0242AC120002:1-3,\n" + A + ":1-5:11-18");

    assertThat(set.toString()).isEqualTo(A + ":1-5:11-18," + B + ":1-3");
    assertThat(set.intervals()).containsOnlyKeys(A, B);
  }

  @Test
  void mergesOverlappingAndAdjacentIntervalsAndPrintsSinglesWithoutDash() {
    assertThat(MysqlGtidSet.parse(A + ":6-9:1-5:7:20-20:12-14:13-15").toString()).isEqualTo(A + ":1-9:12-15:20");
    assertThat(MysqlGtidSet.parse(A + ":1-3," + A + ":4-6").toString()).isEqualTo(A + ":1-6");
  }

  @Test
  void anIntervalEndingBeforeItsStartIsEmptyAsMysqlTreatsIt() {
    assertThat(MysqlGtidSet.parse(A + ":5-3").isEmpty()).isTrue();
    assertThat(MysqlGtidSet.parse(A + ":5-3:7").toString()).isEqualTo(A + ":7");
  }

  @Test
  void emptyTextIsTheEmptySet() {
    assertThat(MysqlGtidSet.parse("").isEmpty()).isTrue();
    assertThat(MysqlGtidSet.parse(" \n").toString()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "3e11fa47-71ca-11e1-9e33-c80aa9429562", // no interval
      "3e11fa47-71ca-11e1-9e33:1-5", // short uuid
      "zz11fa47-71ca-11e1-9e33-c80aa9429562:1-5",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:0-5", // GNOs start at 1
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:-5",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:+1",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2-3",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:99999999999999999999",
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5;drop",
  })
  void rejectsMalformedSetsWithInvalidArgument(String text) {
    assertThatThrownBy(() -> MysqlGtidSet.parse(text))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageStartingWith("invalid MySQL56 GTID set");
  }

  @Test
  void refusesGtidTagsClearly() {
    assertThatThrownBy(() -> MysqlGtidSet.parse(A + ":1-5:mytag:1-3"))
        .hasMessageContaining("GTID tags ('mytag') are not supported");
  }

  @ParameterizedTest(name = "{0} contains {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      // same uuid: interval inclusion
      A + ":1-10 | " + A + ":1-10 | true",
      A + ":1-10 | " + A + ":3-7 | true",
      A + ":1-10 | " + A + ":1-11 | false",
      A + ":1-5:7-10 | " + A + ":1-10 | false", // the gap at 6 is missing
      A + ":1-5:7-10 | " + A + ":2-4:8 | true",
      // multi-uuid sets: every uuid of the wanted set must be covered
      A + ":1-10," + B + ":1-3 | " + A + ":1-10 | true",
      A + ":1-10," + B + ":1-3 | " + A + ":1-10," + B + ":1-3 | true",
      A + ":1-10 | " + A + ":1-10," + B + ":1 | false",
      A + ":1-10," + B + ":1-3 | " + A + ":1-9," + B + ":1-4 | false",
      B + ":1-3 | " + A + ":1 | false",
  })
  void containsIsSetInclusionPerUuid(String have, String want, boolean expected) {
    assertThat(MysqlGtidSet.parse(have).contains(MysqlGtidSet.parse(want))).isEqualTo(expected);
  }

  @Test
  void everySetContainsTheEmptySetAndTheEmptySetContainsNothingElse() {
    assertThat(MysqlGtidSet.parse(A + ":1").contains(MysqlGtidSet.empty())).isTrue();
    assertThat(MysqlGtidSet.empty().contains(MysqlGtidSet.empty())).isTrue();
    assertThat(MysqlGtidSet.empty().contains(MysqlGtidSet.parse(A + ":1"))).isFalse();
  }

  @Test
  void equalSetsAreEqualWhateverTheirSpelling() {
    assertThat(MysqlGtidSet.parse(A.toUpperCase() + ":1-3:4-5"))
        .isEqualTo(MysqlGtidSet.parse(A + ":1-5"))
        .hasSameHashCodeAs(MysqlGtidSet.parse(A + ":1-5"));
  }

  @Test
  void comparingAcrossFlavorsIsRefused() {
    assertThatThrownBy(() -> MysqlGtidSet.parse(A + ":1").contains(MariadbGtidSet.parse("0-1-1")))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("cannot compare a MySQL56 GTID set with a MariaDB one");
  }
}
