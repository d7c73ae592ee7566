package io.pointsman.engine.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class FanOutTest {

  @Test
  void everyItemRunsAtOnceAndResultsKeepTheItemsOrder() {
    List<Integer> items = List.of(1, 2, 3, 4);
    // each branch waits for all the others: it completes only if they all run at the same time
    CountDownLatch allStarted = new CountDownLatch(items.size());

    List<String> out = FanOut.map(items, i -> {
      allStarted.countDown();
      try {
        assertThat(allStarted.await(10, TimeUnit.SECONDS)).as("every branch started").isTrue();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return "r" + i;
    });

    assertThat(out).containsExactly("r1", "r2", "r3", "r4");
  }

  @Test
  void theFirstFailureIsThrownOnlyAfterEveryBranchEnded() {
    AtomicBoolean slowBranchEnded = new AtomicBoolean();

    assertThatThrownBy(() -> FanOut.forEach(List.of("fails", "slow", "also fails"), item -> {
      switch (item) {
        case "slow" -> {
          try {
            Thread.sleep(300); // a branch still changing something when another has failed
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          slowBranchEnded.set(true);
        }
        default -> throw new IllegalArgumentException(item);
      }
    })).isInstanceOf(IllegalArgumentException.class).hasMessage("fails")
        .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage).containsExactly("also fails"));
    assertThat(slowBranchEnded).as("returned only when the slow branch had ended").isTrue();
  }

  @Test
  void oneItemRunsOnTheCallersThread() {
    Thread caller = Thread.currentThread();

    assertThat(FanOut.map(List.of("only"), item -> Thread.currentThread())).containsExactly(caller);
  }
}
