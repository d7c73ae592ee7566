package io.pointsman.engine.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import org.junit.jupiter.api.Test;

class ShardRefTest {
  private static final PrimaryTerm PLANNED = new PrimaryTerm("zone1-0000000100", "2026-12-05T10:00:00Z");

  @Test
  void aRefExpectingAPrimaryRefusesAnotherAliasOrAnotherTermOfTheSameTablet() {
    ShardRef ref = new ShardRef("commerce", "0").expecting(PLANNED);

    assertThatCode(() -> ref.checkPrimary(new PrimaryTerm("zone1-0000000100", "2026-12-05T10:00:00Z")))
        .doesNotThrowAnyException();
    for (PrimaryTerm now : new PrimaryTerm[] {new PrimaryTerm("zone1-0000000101", "2026-12-05T10:00:00Z"),
        new PrimaryTerm("zone1-0000000100", "2026-12-05T11:00:00Z")}) {
      assertThatThrownBy(() -> ref.checkPrimary(now))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
          .hasMessageContaining("the primary of commerce/0 changed during the switch")
          .hasMessageContaining("planned " + PLANNED).hasMessageContaining("now " + now)
          .hasMessageContaining("nothing was changed on the new primary");
    }
  }

  @Test
  void aRefWithoutExpectationTakesAnyPrimary() {
    assertThatCode(() -> new ShardRef("commerce", "0").checkPrimary(new PrimaryTerm("zone1-0000000999", "")))
        .doesNotThrowAnyException();
  }

  @Test
  void theExpectationIsNotPartOfWhichShardItIs() {
    ShardRef plain = new ShardRef("commerce", "0");
    ShardRef bound = plain.expecting(PLANNED);

    assertThat(bound).isEqualTo(plain).hasSameHashCodeAs(plain).hasToString("commerce/0");
    assertThat(bound.expectedPrimary()).isEqualTo(PLANNED);
    assertThat(plain.expectedPrimary()).isNull();
    assertThat(bound).isNotEqualTo(new ShardRef("commerce", "-80"));
  }
}
