package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlIdentifiersTest {

  @Test
  void quotesValidNames() {
    assertThat(SqlIdentifiers.database("vt_customer")).isEqualTo("`vt_customer`");
    assertThat(SqlIdentifiers.table("corder$2")).isEqualTo("`corder$2`");
    assertThat(SqlIdentifiers.qualified("_vt", "vreplication")).isEqualTo("`_vt`.`vreplication`");
  }

  @ParameterizedTest
  @ValueSource(strings = {"t`; DROP DATABASE x; --", "t`", "a.b", "a b", "t'", "t\"", "t\\", "t;", "", "t\n",
      "tä", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void refusesHostileNamesInsteadOfQuotingThem(String name) {
    assertThatThrownBy(() -> SqlIdentifiers.table(name))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> SqlIdentifiers.database(name)).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> WriteScope.tables(List.of(name))).isInstanceOf(PointsmanException.class);
  }
}
