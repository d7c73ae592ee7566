package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.testing.EtcdCluster;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.StoreOptions;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S6 of docs/failure-scenarios.md §2: the lock holder talks to one member of a three-member etcd, and
 * the other two go away, leaving it on the minority side. Nothing it does may look like success:
 * its renewals fail and it reports the lock lost within the TTL, and a fenced topology write through
 * that member fails as unavailable or unknown, never applied. When the majority is back, the lock
 * stays lost for its holder, the write it attempted is nowhere, and the next holder's token fences
 * the old one out.
 */
@Timeout(240)
class LockMinorityPartitionTest {
  private static final Logger log = LoggerFactory.getLogger(LockMinorityPartitionTest.class);
  private static final Duration TTL = Duration.ofSeconds(3);
  /**
   * The holder's local deadline is the send time of its last successful renewal plus the TTL, and
   * no renewal can succeed once the majority is gone, so the deadline is at most one TTL after
   * that. A renewal call in flight is bounded by that deadline too; the margin only covers the
   * timeout's completion reaching the lock service's scheduler thread on a loaded machine.
   */
  private static final Duration DETECTION_MARGIN = Duration.ofMillis(1500);
  /** The member the holder is connected to, and the two that leave it alone. */
  private static final int MINORITY = 2;

  private EtcdCluster cluster;
  private Client holderClient;
  private Client majorityClient;
  private TopoPaths paths;
  private EtcdLockService holderLocks;
  private EtcdTopologyStore holderStore;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new EtcdCluster(3).start();
    holderClient = TestEtcd.client(cluster.endpoint(MINORITY));
    majorityClient = TestEtcd.client(cluster.endpoints());
    paths = TestEtcd.freshPaths();
    holderLocks = new EtcdLockService(holderClient, paths);
    // few attempts of short calls: the store's own retries are not what this test is about
    holderStore = new EtcdTopologyStore(holderClient, paths,
        new StoreOptions(Duration.ofSeconds(5), 2, StoreOptions.DEFAULT.maxTxnOps(), StoreOptions.DEFAULT.maxTxnBytes()));
    EtcdTopologyStore setup = new EtcdTopologyStore(majorityClient, paths);
    setup.create(setup.keys().keyspace("customer"), Keyspace.normal());
    setup.create(shardKey(setup), Shard.of(KeyRange.ofShard("-80"), new TabletAlias("zone1", 100), true));
  }

  @AfterEach
  void tearDown() throws Exception {
    holderLocks.close();
    holderClient.close();
    majorityClient.close();
    cluster.close();
  }

  @Test
  void aHolderLeftWithAMinorityLosesItsLockAndNoneOfItsWritesApplies() throws Exception {
    HeldLock lock = holderLocks.lockKeyspace("customer", LockOptions.builder().action("SwitchWrites").ttl(TTL)
        .renewInterval(Duration.ofMillis(500)).build());
    LockToken token = lock.token();
    long before = holderStore.getRequired(shardKey(holderStore)).modRevision();

    cluster.kill(0);
    cluster.kill(1);
    long minority = System.nanoTime(); // from here on no renewal can succeed

    LockLoss loss = lock.lossFuture().get(TTL.plusSeconds(30).toSeconds(), TimeUnit.SECONDS);
    Duration reportedAfter = Duration.ofNanos(System.nanoTime() - minority);
    log.info("the minority-side holder reported {} {} ms after the majority left", loss, reportedAfter.toMillis());
    assertThat(reportedAfter).as("loss reported within the TTL (%s) plus %s ms for the detection to run",
        TTL, DETECTION_MARGIN.toMillis()).isLessThanOrEqualTo(TTL.plus(DETECTION_MARGIN));
    assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
    assertThat(lock.isHeld()).isFalse();
    assertThatThrownBy(() -> holderStore.update(shardKey(holderStore), s -> s.withPrimaryServing(false),
        LockSet.of(token)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          log.info("the fenced write through the minority member: {} {}", e.code(), e.getMessage());
          assertThat(e.code()).isIn(ErrorCode.UNAVAILABLE, ErrorCode.UNKNOWN_OUTCOME);
        });

    cluster.start(0);
    cluster.start(1);
    EtcdTopologyStore majority = new EtcdTopologyStore(majorityClient, paths);
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().pollInterval(Duration.ofMillis(200))
        .until(() -> majority.getRequired(shardKey(majority)) != null);
    var shard = majority.getRequired(shardKey(majority));
    assertThat(shard.modRevision()).as("the write made on the minority side applied nowhere").isEqualTo(before);
    assertThat(shard.value().isPrimaryServing()).isTrue();
    assertThat(lock.isHeld()).as("lost stays lost, though etcd may have restored the lease").isFalse();

    // Nobody renews the old lease now: it expires, the next holder gets a higher token, and a late
    // write under the old one is refused.
    try (EtcdLockService next = new EtcdLockService(majorityClient, paths);
        HeldLock taken = next.lockKeyspace("customer", LockOptions.builder().action("SwitchWrites").ttl(TTL)
            .acquireTimeout(Duration.ofSeconds(60)).build())) {
      assertThat(taken.token().fencingToken()).isGreaterThan(token.fencingToken());
      assertThatThrownBy(() -> majority.update(shardKey(majority), s -> s.withPrimaryServing(false),
          LockSet.of(token))).isInstanceOf(LockLostException.class);
      majority.update(shardKey(majority), s -> s.withPrimaryServing(false), LockSet.of(taken.token()));
      assertThat(majority.getRequired(shardKey(majority)).value().isPrimaryServing()).isFalse();
    }
  }

  private static RecordKey<Shard> shardKey(EtcdTopologyStore store) {
    return store.keys().shard("customer", "-80");
  }
}
