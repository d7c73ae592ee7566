package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.lock.LockToken;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Handing a lock to another holder: detach, detach after a grace, and closing the service. */
@Timeout(120)
class LockDetachTest extends LockFixture {
  private static final Duration TTL = Duration.ofSeconds(2);

  LockDetachTest() {
    super(Part.LOCKS);
  }

  private static LockOptions.Builder options() {
    return LockOptions.builder().action("SwitchWrites").ttl(TTL).acquireTimeout(PATIENT);
  }

  /**
   * A check asks, it does not renew (docs/locks.md §6): steps check before every MySQL change, and
   * a check that renewed would keep a lock alive past its max hold, or after its holder stopped.
   */
  @Test
  void checkingALockNobodyRenewsLetsItExpireWithinItsTtl() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().build());
    LockToken token = lock.token();
    lock.detach();
    long start = System.nanoTime();

    await().pollInterval(Duration.ofMillis(300)).atMost(TTL.multipliedBy(4))
        .until(() -> !locks.checkAll(List.of(token)).get(0).held() && !locks.check(token).held());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TTL.plusSeconds(2));
    assertThat(locks.check(token).message()).contains("lease");
  }

  @Test
  void detachStopsRenewalWithoutRevokingAndCloseThenDoesNothing() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().build());
    LockToken token = lock.token();

    lock.detach();
    lock.detach(); // idempotent
    lock.close(); // not ours to release any more

    assertThat(view.holds(token)).as("not revoked").isTrue();
    assertThat(lock.isHeld()).isFalse();
    assertThatThrownBy(lock::checkHeld).isInstanceOf(LockLostException.class).hasMessageContaining("detached");
    // nothing renews it: it expires within a TTL (plus etcd's 500 ms expiry sweep)
    await().atMost(TTL.multipliedBy(3)).pollInterval(Duration.ofMillis(100)).until(() -> view.keyGone(token));
    assertThat(lock.lossFuture()).as("a detach is not a loss").isNotDone();
  }

  @Test
  void detachAfterKeepsRenewingThroughTheGraceThenLetsTheLeaseExpire() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().build());
    LockToken token = lock.token();
    Duration grace = TTL.multipliedBy(2);
    long start = System.nanoTime();

    lock.detachAfter(grace);

    // renewed past a whole TTL, so the grace really renews
    await().during(TTL.plusMillis(500)).atMost(PATIENT).pollInterval(Duration.ofMillis(100))
        .until(() -> view.holds(token));
    await().atMost(PATIENT).pollInterval(Duration.ofMillis(100)).until(() -> view.keyGone(token));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(grace)
        .isLessThan(grace.plus(TTL.multipliedBy(3)));
    assertThat(lock.isHeld()).isFalse();
    assertThat(lock.lossFuture()).isNotDone();
  }

  @Test
  void anAttachInTheSameProcessEndsTheGraceAndOwnsTheLock() throws Exception {
    HeldLock acquired = locks.lockKeyspace("customer", options().build());
    LockToken token = acquired.token();
    acquired.detachAfter(Duration.ofMillis(300));

    HeldLock attached = locks.attach(token, options().build());

    assertThat(acquired.isHeld()).isFalse();
    // the scheduled detach of the old handle must not touch the new one
    await().during(TTL.multipliedBy(2)).atMost(PATIENT).pollInterval(Duration.ofMillis(200))
        .until(() -> view.holds(token) && attached.isHeld());
    attached.close();
    assertThat(view.keyGone(token)).isTrue();
  }

  @Test
  void closingTheServiceReportsServiceClosedAndLeavesTheLeaseForAnotherProcess() throws Exception {
    HeldLock lock = locks.lockKeyspace("customer", options().build());

    locks.close();

    LockLoss loss = lock.lossFuture().get(10, TimeUnit.SECONDS);
    assertThat(loss.reason()).isEqualTo(LockLoss.Reason.SERVICE_CLOSED);
    assertThat(view.holds(lock.token())).isTrue();
    try (EtcdLockService other = new EtcdLockService(etcd, paths)) {
      HeldLock attached = other.attach(lock.token(), options().build());
      assertThat(attached.isHeld()).isTrue();
      attached.close();
    }
    assertThat(view.keyGone(lock.token())).isTrue();
  }
}
