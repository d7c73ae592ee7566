package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No DDL of a stale holder lands after a newer holder raised the fence (docs/locks.md §8): the
 * barrier's and the table drops' statements each run under a guard the fence raise waits for,
 * and each checks the fence again. A holder is paused between its statements, or between a
 * statement's check and the statement, through {@link DdlHook}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BarrierDdlFenceTest {
  private static final Duration DRAIN = Duration.ofSeconds(20);
  private static final WriteScope T_AND_U = WriteScope.tables(List.of("t", "u"));

  private MySqlTestSupport db;
  private WriteBarrier barrier;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final CountDownLatch paused = new CountDownLatch(1);
  private final CountDownLatch resume = new CountDownLatch(1);

  @BeforeEach
  void setUp() throws SQLException {
    db = new MySqlTestSupport();
    barrier = new WriteBarrier(db.pools, db.fence);
    MySqlTestSupport.exec("CREATE TABLE " + db.table("t") + " (id int PRIMARY KEY)");
    MySqlTestSupport.exec("CREATE TABLE " + db.table("u") + " (id int PRIMARY KEY)");
  }

  @AfterEach
  void tearDown() throws Exception {
    resume.countDown();
    executor.shutdownNow();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    db.close();
  }

  /** Pauses the thread named {@code staleThread} at its {@code nth} statement, before or inside the guard. */
  private void pauseStale(String staleThread, int nth, boolean insideGuard) {
    AtomicInteger seen = new AtomicInteger();
    db.fence.hook(new DdlHook() {
      @Override
      public void beforeGuard(String sql) {
        if (!insideGuard) {
          maybePause();
        }
      }

      @Override
      public void guarded(String sql) {
        if (insideGuard) {
          maybePause();
        }
      }

      private void maybePause() {
        if (Thread.currentThread().getName().equals(staleThread) && seen.incrementAndGet() == nth) {
          paused.countDown();
          try {
            resume.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
  }

  private <T> Future<T> asStale(java.util.concurrent.Callable<T> work) {
    return executor.submit(() -> {
      Thread.currentThread().setName("stale-holder");
      return work.call();
    });
  }

  /**
   * A deny of t and u by the holder of token 100, started on the stale thread and paused at its
   * second statement, before the guard or inside it.
   */
  private Future<WriteBarrier.Result> staleDenyPausedAtItsSecondStatement(boolean insideGuard)
      throws InterruptedException {
    LockSet stale = db.lock(100);
    pauseStale("stale-holder", 2, insideGuard);
    Future<WriteBarrier.Result> deny = asStale(() -> barrier.deny(db.endpoint, T_AND_U, stale, DRAIN));
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
    return deny;
  }

  @Test
  void aStaleDenyPausedBetweenStatementsCreatesNoTriggerAfterANewerHolderRolledBack() throws Exception {
    Future<WriteBarrier.Result> deny = staleDenyPausedAtItsSecondStatement(false);
    LockSet newer = db.lock(200);
    assertThat(barrier.deniedTables(db.endpoint)).containsExactly("t");

    // The newer holder rolls the switch back: the barrier comes off under its higher token.
    barrier.allow(db.endpoint, T_AND_U, newer, DRAIN);
    assertThat(barrier.deniedTables(db.endpoint)).isEmpty();

    resume.countDown();
    assertThatThrownBy(() -> deny.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LockLostException.class).hasMessageContaining("holds token 200, ours is 100");
    assertThat(barrier.deniedTables(db.endpoint)).as("no trigger of the stale holder after the rollback").isEmpty();
    MySqlTestSupport.exec("INSERT INTO " + db.table("u") + " VALUES (1)");
  }

  @Test
  void aNewerHolderWaitsForTheStaleStatementInFlightAndTheStaleHolderStopsRightAfterIt() throws Exception {
    Future<WriteBarrier.Result> deny = staleDenyPausedAtItsSecondStatement(true);
    LockSet newer = db.lock(200);

    Future<WriteBarrier.Result> allow = executor.submit(() -> barrier.allow(db.endpoint, T_AND_U, newer, DRAIN));
    // The newer holder's fence raise queues behind the statement whose check has passed.
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnTheGuard() == 1);
    assertThat(allow.isDone()).isFalse();

    resume.countDown();
    assertThatThrownBy(() -> deny.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
    assertThat(allow.get(30, TimeUnit.SECONDS).triggersChanged()).as("the in-flight trigger is dropped too")
        .hasSize(2);
    assertThat(barrier.deniedTables(db.endpoint)).isEmpty();
  }

  @Test
  void aStaleTableDropPausedAfterItsCheckLandsBeforeTheNewerRaiseAndStopsThere() throws Exception {
    LockSet stale = db.lock(100);
    LockSet newer = db.lock(200);
    TableDrops drops = new TableDrops(db.pools, db.fence);
    pauseStale("stale-holder", 1, true);
    Future<List<String>> drop = asStale(() -> drops.drop(db.endpoint, List.of("t", "u"), stale));
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();

    Future<?> raise = executor.submit(() -> db.fence.check(db.endpoint, newer, "the newer holder's first change"));
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnTheGuard() == 1);
    assertThat(raise.isDone()).isFalse();

    resume.countDown();
    raise.get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> drop.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
    assertThat(drops.baseTables(db.endpoint)).as("t went before the raise, u never").containsExactly("u");
  }

  @Test
  void theTriggerDdlNeverWaitsForAMetadataLockLongerThanTheTimeout() throws Exception {
    try (Connection tx = MySqlTestSupport.client()) {
      tx.setAutoCommit(false);
      try (Statement st = tx.createStatement()) {
        st.executeUpdate("INSERT INTO " + db.table("t") + " VALUES (42)");
      }
      Duration timeout = Duration.ofMillis(1500);
      long started = System.nanoTime();
      assertThatThrownBy(() -> barrier.deny(db.endpoint, WriteScope.tables(List.of("t")), db.lock(100), timeout))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(took).as("deny with a timeout of %s", timeout).isLessThan(timeout.plusMillis(300));
      tx.rollback();
    }
  }

  private long waitingOnTheGuard() throws SQLException {
    try (Connection c = MySqlTestSupport.client(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
            + " WHERE INFO LIKE '%GET_LOCK%' AND ID <> CONNECTION_ID()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
