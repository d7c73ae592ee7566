package io.pointsman.engine.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PollScheduleTest {

  @Test
  void pausesStartAtOneMillisecondAndDoubleUpToTheCap() {
    PollSchedule polls = PollSchedule.upTo(Duration.ofMillis(10));

    List<Duration> pauses = IntStream.rangeClosed(1, 7).mapToObj(polls::pause).toList();

    assertThat(pauses).containsExactly(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4),
        Duration.ofMillis(8), Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofMillis(10));
  }

  @Test
  void aCapBelowOneMillisecondIsEveryPause() {
    PollSchedule polls = PollSchedule.upTo(Duration.ofNanos(300_000));

    assertThat(polls.pause(1)).isEqualTo(Duration.ofNanos(300_000));
    assertThat(polls.pause(5)).isEqualTo(Duration.ofNanos(300_000));
  }

  @Test
  void aLongWaitStaysAtTheCapWithoutOverflowing() {
    PollSchedule polls = new PollSchedule(Duration.ofMillis(3), Duration.ofSeconds(2));

    assertThat(polls.pause(64)).isEqualTo(Duration.ofSeconds(2));
    assertThat(polls.pause(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(2));
    // a cap far above the first pause is still reached, not stopped short by a bound on doublings
    PollSchedule wide = new PollSchedule(Duration.ofNanos(1), Duration.ofDays(3650));
    assertThat(wide.pause(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(3650));
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void noPauseRunsPastTheDeadline() throws InterruptedException {
    PollSchedule hourly = new PollSchedule(Duration.ofHours(1), Duration.ofHours(1));

    // a pause of an hour, cut to nothing by a deadline already passed; the timeout fails a sleep
    hourly.sleepAfter(1, System.nanoTime() - 1);
    // and cut to the time left before a near deadline
    hourly.sleepAfter(3, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5));
  }

  @Test
  void badSchedulesAndReadCountsAreRefusedByName() {
    assertThatThrownBy(() -> new PollSchedule(Duration.ZERO, Duration.ofMillis(5)))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("positive first pause")
        .satisfies(e -> assertThat(((PointsmanException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> new PollSchedule(Duration.ofMillis(10), Duration.ofMillis(5)))
        .hasMessageContaining("no longer than its cap").hasMessageContaining("PT0.01S");
    assertThatThrownBy(() -> PollSchedule.upTo(Duration.ofMillis(10)).pause(0))
        .hasMessageContaining("counted from 1, got 0");
  }
}
