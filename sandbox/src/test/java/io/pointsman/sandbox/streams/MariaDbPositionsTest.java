package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.api.gtid.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MariaDbPositionsTest {
  @Test
  void advancingMovesOnlyTheTransactionsDomain() {
    MariadbGtidSet pos = MariaDbPositions.parse("MariaDB/0-1-17,1-2-5");
    MariadbGtidSet next = MariaDbPositions.advance(pos, new MariadbGtidSet.Gtid(0, 1, 18));
    assertThat(MariaDbPositions.encode(next)).isEqualTo("MariaDB/0-1-18,1-2-5");
    assertThat(MariaDbPositions.encode(MariaDbPositions.advance(next, new MariadbGtidSet.Gtid(2, 3, 1))))
        .isEqualTo("MariaDB/0-1-18,1-2-5,2-3-1");
  }

  @Test
  void aTransactionAtOrBeforeThePositionCountsAsApplied() {
    MariadbGtidSet pos = MariaDbPositions.parse("MariaDB/0-1-17");
    assertThat(MariaDbPositions.includes(pos, new MariadbGtidSet.Gtid(0, 1, 17))).isTrue();
    assertThat(MariaDbPositions.includes(pos, new MariadbGtidSet.Gtid(0, 1, 18))).isFalse();
    assertThat(MariaDbPositions.includes(pos, new MariadbGtidSet.Gtid(1, 1, 1))).isFalse();
  }

  @Test
  void stopPositionIsReachedPerDomain() {
    Position stop = Position.parse("MariaDB/0-1-20");
    assertThat(MariaDbPositions.reached(MariaDbPositions.parse("MariaDB/0-1-19"), stop)).isFalse();
    assertThat(MariaDbPositions.reached(MariaDbPositions.parse("MariaDB/0-1-20"), stop)).isTrue();
    assertThat(MariaDbPositions.reached(MariaDbPositions.parse("MariaDB/0-1-21,1-1-1"), stop)).isTrue();
  }

  @Test
  void onlyMariaDbPositionsAreAccepted() {
    assertThatThrownBy(() -> MariaDbPositions.parse("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("MariaDB sources only");
    assertThatThrownBy(() -> MariaDbPositions.parse("")).isInstanceOf(PointsmanException.class);
    assertThat(MariaDbPositions.parse("MariaDB/").isEmpty()).isTrue();
  }
}
