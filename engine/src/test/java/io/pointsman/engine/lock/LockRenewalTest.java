package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockToken;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Keeping a lock: renewal that outlives its caller, max hold, losses, checks, release and attach. */
@Timeout(120)
class LockRenewalTest extends LockFixture {
  /** etcd's smallest lease TTL with default election settings; shorter ones are granted as 2 s. */
  private static final Duration TTL = Duration.ofSeconds(2);

  LockRenewalTest() {
    super(Part.LOCKS, Part.THREADS);
  }

  private static LockOptions.Builder options() {
    return LockOptions.builder().action("SwitchWrites").ttl(TTL).acquireTimeout(PATIENT);
  }

  @Test
  void renewalGoesOnAfterTheAcquiringThreadIsCancelledAndInterrupted() throws Exception {
    AtomicReference<HeldLock> lock = new AtomicReference<>();
    CountDownLatch acquired = new CountDownLatch(1);
    Future<?> caller = threads.submit(() -> {
      lock.set(locks.lockKeyspace("customer", options().build()));
      acquired.countDown();
      new CountDownLatch(1).await(); // the activity "runs" until cancelled
      return null;
    });
    assertThat(acquired.await(PATIENT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    caller.cancel(true); // interrupts the thread that acquired the lock
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    LockToken token = lock.get().token();
    await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(4)).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(token) && lock.get().isHeld());
    assertThat(lock.get().lossFuture()).isNotDone();
    lock.get().close();
  }

  @Test
  void anInterruptWhileWaitingInLineGivesUpRevokesOurKeyAndKeepsTheFlag() throws Exception {
    String dir = paths.keyspaceDir("customer");
    HeldLock holder = locks.lockKeyspace("customer", options().build());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<Boolean> flagKept = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        locks.lockKeyspace("customer", options().build());
      } catch (RuntimeException e) {
        failure.set(e);
        flagKept.set(Thread.currentThread().isInterrupted());
      }
    });
    waiter.start();
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).size() == 2);

    waiter.interrupt();
    waiter.join(PATIENT.toMillis());

    assertThat(failure.get()).isInstanceOfSatisfying(PointsmanException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    assertThat(flagKept.get()).isTrue();
    assertThat(view.lockKeys(dir)).containsExactly(holder.token().key());
    holder.close();
  }

  @Test
  void renewalStopsAtMaxHoldAndTheHolderIsTold() throws Exception {
    CompletableFuture<LockLoss> heard = new CompletableFuture<>();
    AtomicReference<String> listenerThread = new AtomicReference<>();
    Duration maxHold = Duration.ofSeconds(3);
    HeldLock lock = locks.lockKeyspace("customer", options().maxHold(maxHold).listener(loss -> {
      listenerThread.set(Thread.currentThread().getName());
      heard.complete(loss);
    }).build());
    LockToken token = lock.token();

    LockLoss loss = lock.lossFuture().get(maxHold.plusSeconds(5).toSeconds(), TimeUnit.SECONDS);
    long lostAt = System.nanoTime();

    assertThat(loss.reason()).isEqualTo(LockLoss.Reason.MAX_HOLD_REACHED);
    assertThat(loss.token()).isEqualTo(token);
    assertThat(heard.get(5, TimeUnit.SECONDS)).isEqualTo(loss);
    assertThat(listenerThread.get()).startsWith("pointsman-lock-events");
    assertThat(lock.isHeld()).isFalse();
    assertThatThrownBy(lock::checkHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("MAX_HOLD_REACHED");
    // etcd expires leases on a 500 ms sweep, hence the slack beyond one TTL
    await().atMost(TTL.plusSeconds(1)).pollInterval(Duration.ofMillis(100)).until(() -> view.keyGone(token));
    assertThat(Duration.ofNanos(System.nanoTime() - lostAt)).isLessThan(TTL.plusSeconds(1));
    lock.close(); // releasing a lost lock is fine
  }

  @Test
  void aLeaseRevokedBehindTheHoldersBackIsReportedAsLost() throws Exception {
    CompletableFuture<LockLoss> heard = new CompletableFuture<>();
    HeldLock lock = locks.lockKeyspace("customer",
        options().ttl(Duration.ofSeconds(3)).listener(heard::complete).build());

    view.revoke(lock.token().leaseId());

    LockLoss loss = lock.lossFuture().get(10, TimeUnit.SECONDS);
    assertThat(loss.reason()).isIn(LockLoss.Reason.LEASE_GONE, LockLoss.Reason.KEY_GONE);
    assertThat(heard.get(5, TimeUnit.SECONDS)).isEqualTo(loss);
    assertThat(lock.isHeld()).isFalse();
    assertThatThrownBy(lock::checkHeld).isInstanceOfSatisfying(LockLostException.class,
        e -> assertThat(e.lockKey()).isEqualTo(lock.token().key()));
    LockStatus status = locks.check(lock.token());
    assertThat(status.held()).isFalse();
    assertThat(status.lossReason()).isEqualTo(LockLoss.Reason.LEASE_GONE);
    lock.close();
  }

  @Test
  void aKeyDeletedBehindTheHoldersBackIsReportedAsKeyGone() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().ttl(Duration.ofSeconds(3)).build());

    view.delete(lock.token().key());

    LockLoss loss = lock.lossFuture().get(10, TimeUnit.SECONDS);
    assertThat(loss.reason()).isEqualTo(LockLoss.Reason.KEY_GONE);
    assertThat(locks.check(lock.token()).lossReason()).isEqualTo(LockLoss.Reason.KEY_GONE);
    assertThatThrownBy(lock::checkHeld).isInstanceOf(LockLostException.class);
    lock.close();
    assertThat(view.leaseTtl(lock.token().leaseId())).isEqualTo(-1);
  }

  @Test
  void checkAsksTheServerAndReleaseIsIdempotentAndNotALoss() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().build());
    LockToken token = lock.token();

    assertThat(locks.check(token).held()).isTrue();
    lock.checkHeld();

    locks.release(token);

    assertThat(view.leaseTtl(token.leaseId())).isEqualTo(-1);
    assertThat(view.keyGone(token)).isTrue();
    assertThat(lock.isHeld()).isFalse();
    assertThat(locks.check(token)).satisfies(s -> {
      assertThat(s.held()).isFalse();
      assertThat(s.lossReason()).isEqualTo(LockLoss.Reason.LEASE_GONE);
    });
    assertThatThrownBy(lock::checkHeld).isInstanceOf(LockLostException.class).hasMessageContaining("released");
    locks.release(token);
    lock.close();
    lock.close();
    // give a would-be renewal time to run: a release must never surface as a loss
    await().during(TTL).atMost(TTL.multipliedBy(2)).until(() -> !lock.lossFuture().isDone());
  }

  @Test
  void attachTakesOverALiveLockAndKeepsItAlive() throws Exception {
    LockToken token;
    try (EtcdLockService crashedWorker = new EtcdLockService(etcd, paths)) {
      token = crashedWorker.lockKeyspace("customer", options().build()).token();
    } // closing stops its renewal without revoking, like a worker that died

    HeldLock attached = locks.attach(token, options().build());

    assertThat(attached.token()).isEqualTo(token);
    await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(4)).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(token) && attached.isHeld());
    attached.close();
    assertThat(view.keyGone(token)).isTrue();
  }

  @Test
  void attachCountsTheMaxHoldOnTheClockItIsGivenAndNeverGrantsMoreThanAllOfIt() throws Exception {
    Duration maxHold = Duration.ofSeconds(3);
    LockToken token;
    try (EtcdLockService crashedWorker = new EtcdLockService(etcd, paths)) {
      token = crashedWorker.lockKeyspace("customer", options().build()).token();
    }

    // on the token's clock the lock is older than its max hold: lost, whatever this wall clock says
    assertThatThrownBy(() -> locks.attach(token, options().maxHold(maxHold).build(),
        token.acquiredAt().plus(maxHold).plusSeconds(1)))
        .isInstanceOf(LockLostException.class).hasMessageContaining("longer ago than its max hold");
    // a clock an hour behind the token's: the hold left is the whole max hold (renewal stops within
    // seconds, as the wait below shows), not an hour more
    HeldLock attached = locks.attach(token, options().maxHold(maxHold).build(), token.acquiredAt().minusSeconds(3600));
    LockLoss loss = attached.lossFuture().get(maxHold.plusSeconds(5).toSeconds(), TimeUnit.SECONDS);
    assertThat(loss.reason()).isEqualTo(LockLoss.Reason.MAX_HOLD_REACHED);
    attached.close();
  }

  @Test
  void aLaterAttachInTheSameProcessTakesOverAndTheEarlierHandleLetsGo() throws Exception {
    HeldLock acquired = locks.lockKeyspace("customer", options().build());
    LockToken token = acquired.token();

    HeldLock attached = locks.attach(token, options().build());

    assertThat(acquired.isHeld()).isFalse();
    assertThatThrownBy(acquired::checkHeld).isInstanceOf(LockLostException.class).hasMessageContaining("taken over");
    acquired.close(); // a stale holder cleaning up must not release the lock the new handle owns
    await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(token) && attached.isHeld());
    assertThat(acquired.lossFuture()).isNotDone();
    attached.close();
    assertThat(view.keyGone(token)).isTrue();
  }

  @Test
  void attachAllTakesOverEveryLockAndTheEarlierHandlesLetGo() throws Exception {
    HeldLock named = locks.lockNamed("customer/wf", options().build());
    HeldLock keyspace = locks.lockKeyspace("customer", options().build());
    List<LockToken> tokens = List.of(named.token(), keyspace.token());

    List<HeldLock> attached = locks.attachAll(tokens, t -> options().build(), Instant.now());

    assertThat(attached).extracting(HeldLock::token).containsExactlyElementsOf(tokens);
    assertThat(named.isHeld()).isFalse();
    assertThat(keyspace.isHeld()).isFalse();
    await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(tokens.get(0)) && view.holds(tokens.get(1))
            && attached.stream().allMatch(HeldLock::isHeld));
    attached.forEach(HeldLock::close);
    assertThat(view.keyGone(tokens.get(0)) && view.keyGone(tokens.get(1))).isTrue();
  }

  @Test
  void attachAllWithOneLockGoneAttachesNoneAndTheOtherKeepsItsHandle() throws Exception {
    HeldLock alive = locks.lockNamed("customer/wf", options().build());
    LockToken gone = locks.lockKeyspace("customer", options().build()).token();
    locks.release(gone);

    assertThatThrownBy(() -> locks.attachAll(List.of(alive.token(), gone), t -> options().build(), Instant.now()))
        .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.lockKey()).isEqualTo(gone.key()))
        .hasMessageContaining("LEASE_GONE");
    // not taken over: the handle that had it renews it as before
    assertThat(alive.isHeld()).isTrue();
    await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(alive.token()) && alive.isHeld());
    alive.close();
  }

  @Test
  void attachToAReleasedLockFails() throws Exception {
    LockToken token = locks.lockKeyspace("customer", options().build()).token();
    locks.release(token);

    assertThatThrownBy(() -> locks.attach(token, options().build()))
        .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.lockKey()).isEqualTo(token.key()))
        .hasMessageContaining("LEASE_GONE");
  }

  @Test
  void attachChecksTheRenewIntervalAgainstTheTokensTtl() throws Exception {
    try (HeldLock lock = locks.lockKeyspace("customer", options().build())) {
      LockOptions tooSlow = LockOptions.builder().action("x").ttl(Duration.ofSeconds(30))
          .renewInterval(Duration.ofSeconds(5)).build();

      assertThatThrownBy(() -> locks.attach(lock.token(), tooSlow))
          .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }
  }
}
