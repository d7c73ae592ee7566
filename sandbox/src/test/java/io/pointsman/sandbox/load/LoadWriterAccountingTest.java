package io.pointsman.sandbox.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.pointsman.sandbox.router.Write;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a {@link LoadWriter} accounts for every write it sends, against targets that answer as the
 * test says (no router, no database): each write is recorded once, a write without an answer when
 * the load stops is recorded as failed and its late answer is dropped, and the target words the
 * failures it refuses.
 */
@Timeout(60)
class LoadWriterAccountingTest {
  private static final WriteFactory WRITES = WriteFactory.customerInserts("customer", 1_000);

  @Test
  void aWriteStillHeldWhenTheLoadStopsIsRecordedOnceAsUnanswered() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    WriteTarget holdsKey1003 = holdsKey1003Until(release, Duration.ofMillis(100));
    LoadWriter load = LoadWriter.start(holdsKey1003, LoadOptions.builder().ratePerSecond(50).writers(2)
        .duration(Duration.ofSeconds(60)).writes(WRITES).build());
    await().atMost(Duration.ofSeconds(10)).until(() -> load.loadLog().acknowledged() >= 10);
    assertThat(load.inFlight()).as("the held write").isEqualTo(1);

    load.close();

    List<LoadRecord> records = load.loadLog().records();
    assertThat(load.inFlight()).isZero();
    assertThat(records).hasSize((int) load.sent());
    assertThat(records).extracting(LoadRecord::seq).doesNotHaveDuplicates();
    assertThat(records).filteredOn(r -> !r.acknowledged()).singleElement().satisfies(r -> {
      assertThat(r.key()).isEqualTo(1_003);
      assertThat(r.message()).isEqualTo("no answer 5 s after the load stopped");
      assertThat(r.ackNanos()).isGreaterThan(r.sentNanos());
    });
    // the writer was interrupted out of the held write: that answer came after the give-up, and is not recorded
    assertThat(load.awaitDone(Duration.ZERO)).isTrue();
    assertThat(load.loadLog().records()).isEqualTo(records);
  }

  /**
   * The Vitess series waits on this before each switch, so that a write vtgate still holds from the
   * last switch is not counted against the next one: true only once every write sent by then is answered.
   */
  @Test
  void answeredAllSentByWaitsForAWriteStillHeldAndForNoLaterOne() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    WriteTarget holdsKey1003 = holdsKey1003Until(release, Duration.ofSeconds(1));
    long beforeStart = System.nanoTime();
    try (LoadWriter load = LoadWriter.start(holdsKey1003, LoadOptions.builder().ratePerSecond(50).writers(2)
        .duration(Duration.ofSeconds(60)).writes(WRITES).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> load.loadLog().acknowledged() >= 10);
      long afterHeld = System.nanoTime();

      assertThat(load.answeredAllSentBy(beforeStart)).as("nothing was sent before the load started").isTrue();
      assertThat(load.answeredAllSentBy(afterHeld)).as("the held write").isFalse();
      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> load.answeredAllSentBy(afterHeld));
    }
  }

  @Test
  void writesFromNextDueOnAreSentAfterTheCall() throws Exception {
    try (LoadWriter load = LoadWriter.start(new Acknowledges(), LoadOptions.builder().ratePerSecond(200).writers(2)
        .duration(Duration.ofSeconds(2)).writes(WRITES).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> load.loadLog().size() >= 50);
      long before = System.nanoTime();
      long next = load.nextDue();
      long after = System.nanoTime();
      assertThat(load.awaitDone(Duration.ofSeconds(10))).isTrue();
      List<LoadRecord> records = load.loadLog().records();
      assertThat(next).isBetween(50L, 400L);
      assertThat(records).filteredOn(r -> r.seq() >= next).isNotEmpty()
          .allSatisfy(r -> assertThat(r.sentNanos()).isGreaterThan(before));
      assertThat(records).filteredOn(r -> r.seq() < next)
          .allSatisfy(r -> assertThat(r.dueNanos()).isLessThanOrEqualTo(after));
      assertThat(load.nextDue()).as("past the run's last write").isEqualTo(400);
    }
  }

  @Test
  void aRefusedWriteIsRecordedWithTheTargetsWordsForIt() throws Exception {
    WriteTarget refuses = new Acknowledges() {
      @Override
      public void send(Write write) {
        throw new IllegalStateException("refused " + write.shardingKey(), new RuntimeException("the reason"));
      }

      @Override
      public String failureMessage(RuntimeException e) {
        return e.getCause().getMessage();
      }
    };
    try (LoadWriter load = LoadWriter.start(refuses, LoadOptions.builder().ratePerSecond(100).writers(1)
        .duration(Duration.ofMillis(50)).writes(WRITES).build())) {
      assertThat(load.awaitDone(Duration.ofSeconds(10))).isTrue();
      assertThat(load.loadLog().records()).hasSize(5).allSatisfy(r -> {
        assertThat(r.acknowledged()).isFalse();
        assertThat(r.message()).isEqualTo("the reason");
      });
    }
  }

  /** vtgate's (here the driver's) own message, without the target's wrapping: nothing listens on the port. */
  @Test
  void vtgateWritesRecordsTheDriversMessage() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    try (VtgateWrites vtgate = new VtgateWrites("127.0.0.1", closedPort, Duration.ofSeconds(1))) {
      IllegalStateException refused = catchThrowableOfType(
          () -> vtgate.send(WRITES.write(0)), IllegalStateException.class);
      assertThat(refused).hasMessageStartingWith("vtgate refused write of key 1000: ");
      assertThat(vtgate.failureMessage(refused)).isEqualTo(refused.getCause().getMessage())
          .doesNotContain("vtgate refused").contains("Communications link failure");
    }
  }

  /** Holds the write of key 1003 until {@code release} opens; acknowledges every other one at once. */
  private static WriteTarget holdsKey1003Until(CountDownLatch release, Duration longestAnswer) {
    return new WriteTarget() {
      @Override
      public void send(Write write) {
        if (write.shardingKey() == 1_003) {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while held");
          }
        }
      }

      @Override
      public Duration longestAnswer() {
        return longestAnswer;
      }
    };
  }

  /** Acknowledges every write at once. */
  private static class Acknowledges implements WriteTarget {
    @Override
    public void send(Write write) {}

    @Override
    public Duration longestAnswer() {
      return Duration.ofSeconds(1);
    }
  }
}
