package io.pointsman.api.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The fence epochs a run stamps its steps with (docs/locks.md §8). */
class LockSetEpochTest {
  private static final LockSet LOCKS = LockSet.of(new LockToken("/vitess/global/keyspaces/customer/locks/7",
      "keyspace customer", 7, 7, Duration.ofMinutes(2), Instant.EPOCH, Duration.ofHours(1)));

  @Test
  void eachStepOfARunIsStampedHigherThanTheOneBefore() {
    long millis = 1_764_900_000_000L;
    for (int step = 0; step < 1023; step++) {
      assertThat(LOCKS.stampedForStep(millis, step + 1).epoch()).isGreaterThan(LOCKS.stampedForStep(millis, step).epoch());
    }
  }

  @Test
  void aPassStampedLaterIsHigherThanEveryStepOfAnEarlierOne() {
    long millis = 1_764_900_000_000L;
    assertThat(LOCKS.stampedForStep(millis + 1, 0).epoch()).isGreaterThan(LOCKS.stampedForStep(millis, 1023).epoch());
  }

  @Test
  void theLowTenBitsAreLeftForTheAttemptAndTheLocksStayTheSame() {
    LockSet stamped = LOCKS.stampedForStep(1_764_900_000_000L, 5);
    assertThat(stamped.epoch() & 0x3FF).isZero();
    assertThat(stamped.locks()).isEqualTo(LOCKS.locks());
  }
}
