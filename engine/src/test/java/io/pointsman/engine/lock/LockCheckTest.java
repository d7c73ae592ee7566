package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.pointsman.api.lock.LockToken;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Asking etcd about several locks at once and taking the answer later ({@link LockService#ask}). */
@Timeout(60)
class LockCheckTest extends LockFixture {
  LockCheckTest() {
    super(Part.LOCKS);
  }

  private static LockOptions options() {
    return LockOptions.builder().action("SwitchWrites").ttl(Duration.ofSeconds(10)).acquireTimeout(PATIENT).build();
  }

  @Test
  void eachLockIsAnsweredInTheOrderAskedAndALostOneSaysWhy() throws Exception {
    try (HeldLock keyspace = locks.lockKeyspace("customer", options());
        HeldLock named = locks.lockNamed("pointsman-check-test", options())) {
      List<LockToken> tokens = List.of(keyspace.token(), named.token());
      assertThat(locks.ask(tokens).statuses()).extracting(LockStatus::held).containsExactly(true, true);

      view.revoke(named.token().leaseId());
      LockCheck afterRevoke = locks.ask(tokens);

      List<LockStatus> statuses = afterRevoke.statuses();
      assertThat(statuses).extracting(LockStatus::held).containsExactly(true, false);
      assertThat(statuses.get(1).lossReason()).isEqualTo(LockLoss.Reason.LEASE_GONE);
      assertThat(afterRevoke.statuses()).as("taken again: the same answer").isEqualTo(statuses);
      assertThat(locks.checkAll(tokens)).extracting(LockStatus::held, LockStatus::lossReason)
          .containsExactly(tuple(true, null), tuple(false, LockLoss.Reason.LEASE_GONE));
    }
  }
}
