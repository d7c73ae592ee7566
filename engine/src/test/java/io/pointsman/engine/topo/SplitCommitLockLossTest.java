package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.topo.model.Keyspace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * S15 with the lock lost between two parts of a split commit, not before the first: the parts
 * before the loss are applied (each was guarded by the lock while it still existed) and every part
 * after it is refused, so what etcd holds is a prefix of the commit, as a re-plan from fresh reads
 * expects.
 */
@Timeout(60)
class SplitCommitLockLossTest extends EtcdTestFixture {
  SplitCommitLockLossTest() {
    super(Part.STORE);
  }

  @Test
  void aLockLostAfterTheFirstPartLeavesThatPartAppliedAndRefusesTheRest() throws Exception {
    // three operations a transaction: one lock guard and two writes a part
    EtcdTopologyStore small = new EtcdTopologyStore(etcd, paths, StoreOptions.DEFAULT.withMaxTxnOps(3));
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    LockToken lock = takeLock(paths.keyspaceDir("customer"));
    long lockModRevision = etcd.getKVClient().get(EtcdClients.bytes(lock.key())).get(10, TimeUnit.SECONDS)
        .getKvs().get(0).getModRevision();

    // The lock is lost between part 1 and part 2 at a point no timing can miss: part 1's second
    // write deletes the lock key itself (its guard held when part 1 was checked), so part 2 is the
    // first part to find the lock gone, exactly as if the lease had expired right after part 1.
    List<RecordWrite<?>> writes = new ArrayList<>();
    writes.add(RecordWrite.create(store.keys().keyspace("ks0"), Keyspace.normal()));
    writes.add(new RecordWrite<>(new RecordKey<>(lock.key(), Keyspace.class), lockModRevision, null));
    for (int i = 2; i < 6; i++) {
      writes.add(RecordWrite.create(store.keys().keyspace("ks" + i), Keyspace.normal()));
    }

    LockLostException lost = catchThrowableOfType(() -> small.commit(writes, LockSet.of(lock)),
        LockLostException.class);

    assertThat(lost).as("the commit reports the loss").isNotNull();
    assertThat(lost.getMessage()).contains(lock.key()).contains("is gone");
    assertThat(store.listKeyspaces()).as("part 1 applied; parts 2 and 3 refused")
        .containsExactlyInAnyOrder("customer", "ks0");
    assertThat(etcd.getKVClient().get(EtcdClients.bytes(lock.key())).get(10, TimeUnit.SECONDS).getKvs()).isEmpty();
  }
}
