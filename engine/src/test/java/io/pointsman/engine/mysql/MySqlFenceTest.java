package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MySqlFenceTest {
  private MySqlTestSupport db;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() throws Exception {
    db = new MySqlTestSupport();
    MySqlTestSupport.exec("CREATE TABLE " + db.table("marks") + " (v int)");
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    db.close();
  }

  private int mark(LockSet locks, int v) {
    return db.fence.inTransaction(db.endpoint, locks, "marking " + v, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.table("marks") + " VALUES (?)")) {
        ps.setInt(1, v);
        return ps.executeUpdate();
      }
    });
  }

  @Test
  void theResourceIsTheLockDirectory() {
    assertThat(MySqlFence.resource(MySqlTestSupport.token("/vitess/global/keyspaces/customer", 5)))
        .isEqualTo("/vitess/global/keyspaces/customer");
  }

  @Test
  void aStaleTokenIsRejectedNamingTheResourceAndBothTokensAndChangesNothing() throws Exception {
    mark(db.lock(10), 1);
    mark(db.lock(20), 2);

    assertThatThrownBy(() -> mark(db.lock(10), 3))
        .isInstanceOfSatisfying(LockLostException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.LOCK_LOST);
          assertThat(e.lockKey()).startsWith(db.lockDir + "/locks/");
        })
        .hasMessageContaining(db.lockDir).hasMessageContaining("holds token 20, ours is 10")
        .hasMessageContaining("marking 3 was not applied");
    assertThat(count()).isEqualTo(2);
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(20);
  }

  /**
   * etcd restored from a backup without --bump-revision hands out tokens below what the primaries
   * have seen: every new holder would look stale forever. The fence says what happened instead.
   */
  @Test
  void aFenceAheadOfEtcdItselfIsReportedAsARestoredEtcdNotALostLock() throws Exception {
    mark(db.lock(5_000), 1);
    MySqlFence afterRestore = new MySqlFence(db.pools, db.schema, () -> 700L);

    assertThatThrownBy(() -> afterRestore.check(db.endpoint, db.lock(650), "raising the barrier"))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("fencing token 650 is below the highest token 5000")
        .hasMessageContaining(db.lockDir).hasMessageContaining("etcd's revision is 700")
        .hasMessageContaining("--bump-revision").hasMessageContaining("nothing was changed");
    // A newer holder in an etcd that did not go back is still a lost lock.
    MySqlFence sane = new MySqlFence(db.pools, db.schema, () -> 9_000L);
    assertThatThrownBy(() -> sane.check(db.endpoint, db.lock(650), "raising the barrier"))
        .isInstanceOf(LockLostException.class);
    assertThat(count()).isEqualTo(1);
  }

  @Test
  void theSameOrAHigherTokenPassesAndRaisesTheFence() throws Exception {
    mark(db.lock(10), 1);
    mark(db.lock(10), 2);
    mark(db.lock(11), 3);

    assertThat(count()).isEqualTo(3);
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(11);
  }

  @Test
  void eachLockIsFencedOnItsOwn() throws Exception {
    String otherDir = "/pointsman-test/" + db.suffix + "/global/internal/named_locks/customer/wf";
    mark(LockSet.of(MySqlTestSupport.token(db.lockDir, 50)), 1);

    // A workflow lock with a lower revision is not fenced out by a newer keyspace lock...
    mark(LockSet.of(MySqlTestSupport.token(otherDir, 30)), 2);
    // ...but a set is rejected when any one of its locks is stale.
    assertThatThrownBy(() -> mark(LockSet.of(MySqlTestSupport.token(otherDir, 30), MySqlTestSupport.token(db.lockDir, 40)), 3))
        .isInstanceOf(LockLostException.class);
    assertThat(count()).isEqualTo(2);
  }

  /**
   * A set's rows are raised in one statement, each to its own lock's token and the set's epoch: an
   * older epoch under the same tokens is then refused on every row.
   */
  @Test
  void aSetRaisesEachRowToItsOwnTokenAndEpoch() throws Exception {
    String workflowDir = "/pointsman-test/" + db.suffix + "/global/internal/named_locks/customer/wf";
    String shardDir = db.lockDir + "/shards/-80";
    mark(LockSet.of(MySqlTestSupport.token(db.lockDir, 40)), 1); // a row that exists, below ours
    LockSet set = new LockSet(List.of(MySqlTestSupport.token(workflowDir, 70), MySqlTestSupport.token(db.lockDir, 50),
        MySqlTestSupport.token(shardDir, 65)), 3);

    mark(set, 2);

    assertThat(db.fence.highestToken(db.endpoint, workflowDir)).hasValue(70);
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(50);
    assertThat(db.fence.highestToken(db.endpoint, shardDir)).hasValue(65);
    for (LockToken lock : set.locks()) {
      assertThatThrownBy(() -> mark(new LockSet(List.of(lock), 2), 3)).as(lock.key())
          .isInstanceOf(LockLostException.class);
    }
    assertThat(count()).isEqualTo(2);
  }

  /** The whole set is read before any row is raised: a stale lock in it leaves the others' rows as they were. */
  @Test
  void aSetWithAStaleLockRaisesNoneOfItsRows() throws Exception {
    String otherDir = "/pointsman-test/" + db.suffix + "/global/internal/named_locks/customer/wf";
    mark(LockSet.of(MySqlTestSupport.token(db.lockDir, 50)), 1);

    assertThatThrownBy(() -> mark(LockSet.of(MySqlTestSupport.token(otherDir, 60),
        MySqlTestSupport.token(db.lockDir, 40)), 2))
        .isInstanceOf(LockLostException.class).hasMessageContaining("holds token 50, ours is 40");
    assertThat(db.fence.highestToken(db.endpoint, otherDir)).isEmpty();
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(50);
    assertThat(count()).isEqualTo(1);
  }

  @Test
  void aFailingChangeRollsBackWithoutRaisingTheFence() throws Exception {
    mark(db.lock(10), 1);

    assertThatThrownBy(() -> db.fence.inTransaction(db.endpoint, db.lock(15), "failing", c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.table("marks") + " VALUES (9)")) {
        ps.executeUpdate();
      }
      throw new IllegalStateException("boom");
    })).hasMessage("boom");

    assertThat(count()).isEqualTo(1);
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(10);
  }

  @Test
  void changesWithoutLocksAreRefused() {
    assertThatThrownBy(() -> mark(new LockSet(List.of()), 1))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void aNewerHolderWaitsForAnOlderChangeInFlightAndThenFencesItOut() throws Exception {
    mark(db.lock(10), 0);
    CountDownLatch releaseOlder = new CountDownLatch(1);
    Future<Integer> older = olderInFlight(releaseOlder, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.table("marks") + " VALUES (1)")) {
        return ps.executeUpdate();
      }
    });
    Future<Integer> newer = executor.submit(() -> mark(db.lock(20), 2));

    // The newer claim blocks on the fence row the older transaction holds.
    await().atMost(Duration.ofSeconds(10)).until(() -> lockWaitsOnFence() == 1);
    assertThat(newer.isDone()).isFalse();
    releaseOlder.countDown();

    assertThat(older.get(30, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(newer.get(30, TimeUnit.SECONDS)).isEqualTo(1);
    assertThatThrownBy(() -> mark(db.lock(10), 3)).isInstanceOf(LockLostException.class);
    assertThat(count()).isEqualTo(3);
  }

  @Test
  void aClaimStillBlockedAtTheLockWaitTimeoutFailsAsADeadlineNotAsADeadlock() throws Exception {
    mark(db.lock(10), 0);
    CountDownLatch releaseOlder = new CountDownLatch(1);
    Future<Integer> older = olderInFlight(releaseOlder, c -> 0);
    long previous = globalLockWait();
    // New sessions read the global: the fence's own pool, opened after this, waits 1 s, not 50.
    MySqlTestSupport.exec("SET GLOBAL innodb_lock_wait_timeout = 1");
    try (ConnectionPools shortWaits = new ConnectionPools(MySqlTestSupport.options())) {
      MySqlFence fence = new MySqlFence(shortWaits, new SidecarSchema(shortWaits));
      assertThatThrownBy(() -> fence.inTransaction(db.endpoint, db.lock(20), "newer", c -> 1))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED))
          .hasMessageContaining("Lock wait timeout");
    } finally {
      MySqlTestSupport.exec("SET GLOBAL innodb_lock_wait_timeout = " + previous);
      releaseOlder.countDown();
    }
    assertThat(older.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(db.fence.highestToken(db.endpoint, db.lockDir)).hasValue(10);
  }

  /**
   * A change under token 10 in flight: its transaction has claimed the fence row and holds it until
   * {@code release}, then runs {@code work} and commits. Returns once the row is claimed.
   */
  private Future<Integer> olderInFlight(CountDownLatch release, SqlWork<Integer> work) throws InterruptedException {
    CountDownLatch inside = new CountDownLatch(1);
    Future<Integer> older = executor.submit(() -> db.fence.inTransaction(db.endpoint, db.lock(10), "older", c -> {
      inside.countDown();
      awaitQuietly(release);
      return work.run(c);
    }));
    assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
    return older;
  }

  private static long globalLockWait() throws Exception {
    try (var c = MySqlTestSupport.client(); var st = c.createStatement();
        var rs = st.executeQuery("SELECT @@GLOBAL.innodb_lock_wait_timeout")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private long lockWaitsOnFence() throws Exception {
    try (var c = MySqlTestSupport.client(); var st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"
            + " AND trx_query LIKE '%" + db.endpoint.sidecarDb() + "%lock_fence%'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long count() throws Exception {
    try (var c = MySqlTestSupport.client(); var st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM " + db.table("marks"))) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
