package io.pointsman.engine.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

  /**
   * Branch threads are kept for later fan-outs, so an interrupt must reach a branch only while it
   * works on its item, and none may be left on a thread for the next fan-out's work.
   */
  @Test
  void anInterruptedCallerInterruptsItsBranchesWaitsForThemAndLeavesNoInterruptBehind() throws Exception {
    CountDownLatch started = new CountDownLatch(2);
    AtomicInteger interruptedBranches = new AtomicInteger();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        FanOut.forEach(List.of(1, 2), i -> {
          started.countDown();
          try {
            Thread.sleep(20_000);
          } catch (InterruptedException e) {
            interruptedBranches.incrementAndGet();
          }
        });
      } catch (RuntimeException e) {
        thrown.set(e);
      }
    });
    caller.start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    caller.interrupt();
    caller.join(10_000);

    assertThat(caller.isAlive()).as("the caller returned once its branches ended").isFalse();
    assertThat(interruptedBranches).hasValue(2);
    assertThat(thrown.get()).hasMessageContaining("interrupted while working on");
    List<Boolean> interruptedAtStart = FanOut.map(List.of(1, 2, 3, 4), i -> Thread.currentThread().isInterrupted());
    assertThat(interruptedAtStart).containsOnly(false);
  }

  @Test
  void branchesAreNamedAfterTheCaller() {
    String caller = Thread.currentThread().getName();

    assertThat(FanOut.map(List.of(1, 2), i -> Thread.currentThread().getName()))
        .containsExactly("pointsman-fan-out-" + caller + "-0", "pointsman-fan-out-" + caller + "-1");
  }

  @Test
  void oneItemRunsOnTheCallersThread() {
    Thread caller = Thread.currentThread();

    assertThat(FanOut.map(List.of("only"), item -> Thread.currentThread())).containsExactly(caller);
  }
}
