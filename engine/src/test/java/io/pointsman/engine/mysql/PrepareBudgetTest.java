package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PrepareBudgetTest {

  @Test
  void withinOneTimeoutBoundsBothTheWaitAndTheWhole() {
    assertThat(PrepareBudget.within(Duration.ofSeconds(30)))
        .isEqualTo(new PrepareBudget(Duration.ofSeconds(30), Duration.ofSeconds(30)));
  }

  @Test
  void aWholeShorterThanOneWaitOrANegativeWaitIsRefusedByName() {
    assertThatThrownBy(() -> new PrepareBudget(Duration.ofSeconds(30), Duration.ofSeconds(10)))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("may take PT10S in all, less than the PT30S one statement may wait");
    assertThatThrownBy(() -> new PrepareBudget(Duration.ofSeconds(-1), Duration.ofSeconds(10)))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("lock wait cannot be negative: PT-1S");
  }
}
