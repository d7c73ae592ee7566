package io.pointsman.api.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PositionTest {
  private static final String UUID_A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String UUID_B = "8f0d7a1c-0000-11ee-8000-0242ac120002";

  @ParameterizedTest
  @ValueSource(strings = {
      "MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5",
      "MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,8f0d7a1c-0000-11ee-8000-0242ac120002:1-3",
      "MariaDB/0-1-42",
      "MariaDB/0-1-42,1-2-7",
      "MySQL56/",
      "MariaDB/",
  })
  void encodesBackToWhatItParsedInVitessForm(String encoded) {
    assertThat(Position.parse(encoded).encode()).isEqualTo(encoded);
  }

  @Test
  void theEmptyStringIsTheZeroPosition() {
    assertThat(Position.parse("")).isSameAs(Position.ZERO);
    assertThat(Position.parse((String) null)).isSameAs(Position.ZERO);
    assertThat(Position.ZERO.encode()).isEmpty();
    assertThat(Position.ZERO.isZero()).isTrue();
    assertThat(Position.ZERO.flavor()).isEmpty();
    assertThat(Position.ZERO).hasToString("(zero position)");
  }

  @Test
  void serverTextParsesWithAnExplicitFlavor() {
    Position mysql = Position.parse(GtidFlavor.MYSQL56, UUID_B + ":1-3,\n" + UUID_A + ":1-5");
    assertThat(mysql.encode()).isEqualTo("MySQL56/" + UUID_A + ":1-5," + UUID_B + ":1-3");
    assertThat(Position.parse(GtidFlavor.MARIADB, "0-1-3").encode()).isEqualTo("MariaDB/0-1-3");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0-1-42", "FilePos/binlog.000001:4", "mysql56/" + UUID_A + ":1", "MariaDB/0-1"})
  void rejectsPositionsWithoutAKnownFlavorOrWithABadSet(String encoded) {
    assertThatThrownBy(() -> Position.parse(encoded))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void atLeastFollowsVitessForZeroPositions() {
    Position p = Position.parse("MariaDB/0-1-1");
    assertThat(p.atLeast(Position.ZERO)).isTrue();
    assertThat(Position.ZERO.atLeast(Position.ZERO)).isTrue();
    assertThat(Position.ZERO.atLeast(p)).isFalse();
  }

  @Test
  void atLeastComparesBothFlavors() {
    assertThat(Position.parse("MySQL56/" + UUID_A + ":1-10," + UUID_B + ":1-3")
        .atLeast(Position.parse("MySQL56/" + UUID_A + ":1-9," + UUID_B + ":1-3"))).isTrue();
    assertThat(Position.parse("MySQL56/" + UUID_A + ":1-10")
        .atLeast(Position.parse("MySQL56/" + UUID_A + ":1-10," + UUID_B + ":1"))).isFalse();
    assertThat(Position.parse("MariaDB/0-1-42,1-2-7").atLeast(Position.parse("MariaDB/0-3-42,1-2-6"))).isTrue();
    assertThat(Position.parse("MariaDB/0-1-42,1-2-7").atLeast(Position.parse("MariaDB/0-1-42,1-2-8"))).isFalse();
  }

  @Test
  void comparingFlavorsIsAnInvalidArgument() {
    assertThatThrownBy(() -> Position.parse("MariaDB/0-1-1").atLeast(Position.parse("MySQL56/" + UUID_A + ":1")))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void equalityIsOnTheNormalizedSet() {
    assertThat(Position.parse("MariaDB/1-2-7,0-1-42")).isEqualTo(Position.parse("MariaDB/0-1-42,1-2-7"));
    assertThat(Position.parse("MariaDB/0-1-42")).isNotEqualTo(Position.parse("MariaDB/0-2-42"));
    assertThat(Position.parse("MySQL56/")).isNotEqualTo(Position.parse("MariaDB/")).isNotEqualTo(Position.ZERO);
  }

  record Carrier(Position position, List<Position> more) {}

  @Test
  void jsonIsTheEncodedString() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    Carrier c = new Carrier(Position.parse("MariaDB/0-1-42"), List.of(Position.ZERO, Position.parse("MySQL56/" + UUID_A + ":1")));

    String json = mapper.writeValueAsString(c);

    assertThat(json).isEqualTo("{\"position\":\"MariaDB/0-1-42\",\"more\":[\"\",\"MySQL56/" + UUID_A + ":1\"]}");
    assertThat(mapper.readValue(json, Carrier.class)).isEqualTo(c);
  }
}
