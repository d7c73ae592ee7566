package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockOptionsTest {

  private static LockOptions.Builder options() {
    return LockOptions.builder().action("SwitchWrites");
  }

  @Test
  void defaultsAreLongTtlVitessLockTimeoutAndTenMinuteMaxHold() {
    LockOptions o = options().build();

    assertThat(o.ttl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.acquireTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(o.maxHold()).isEqualTo(Duration.ofMinutes(10));
    assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(40));
    assertThat(o.holder()).isEqualTo(LockHolder.NONE);
    assertThat(o.listener()).isSameAs(LockListener.NONE);
  }

  @Test
  void ttlIsRoundedUpToWholeSeconds() {
    assertThat(options().ttl(Duration.ofMillis(1500)).build().ttl()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options().ttl(Duration.ofMillis(1)).build().ttl()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options().ttl(Duration.ofSeconds(7)).build().ttl()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void renewIntervalDefaultsToAThirdOfTheRoundedTtl() {
    assertThat(options().ttl(Duration.ofMillis(2500)).build().renewInterval()).isEqualTo(Duration.ofMillis(1000));
  }

  @Test
  void renewIntervalLongerThanAThirdOfTheTtlIsRejected() {
    assertThatThrownBy(() -> options().ttl(Duration.ofSeconds(3)).renewInterval(Duration.ofMillis(1001)).build())
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("third of the TTL");

    assertThat(options().ttl(Duration.ofSeconds(3)).renewInterval(Duration.ofSeconds(1)).build().renewInterval())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void renewIntervalIsCheckedAgainstTheTtlOfTheLeaseItRenews() {
    LockOptions o = options().ttl(Duration.ofSeconds(30)).renewInterval(Duration.ofSeconds(10)).build();

    assertThat(options().build().renewIntervalFor(Duration.ofSeconds(6))).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> o.renewIntervalFor(Duration.ofSeconds(6)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void nonPositiveDurationsAndAMissingActionAreRejected() {
    assertInvalid(LockOptions.builder());
    assertInvalid(LockOptions.builder().action(" "));
    assertInvalid(options().ttl(Duration.ZERO));
    assertInvalid(options().ttl(Duration.ofSeconds(-1)));
    assertInvalid(options().acquireTimeout(Duration.ZERO));
    assertInvalid(options().maxHold(Duration.ofMillis(-5)));
    assertInvalid(options().renewInterval(Duration.ZERO));
  }

  private static void assertInvalid(LockOptions.Builder b) {
    assertThatThrownBy(b::build)
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }
}
