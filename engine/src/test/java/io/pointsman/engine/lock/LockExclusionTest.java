package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.testing.VitessStyleLock;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Who gets a lock and when: queueing, order, Vitess interplay, deadlines and existence checks. */
@Timeout(120)
class LockExclusionTest extends LockFixture {
  private static final Duration TTL = Duration.ofSeconds(10);

  LockExclusionTest() {
    super(Part.LOCKS, Part.THREADS);
  }

  private static LockOptions options(String action) {
    return LockOptions.builder().action(action).ttl(TTL).acquireTimeout(PATIENT).build();
  }

  /**
   * S13: the Txn creating our lock key is carried out by etcd, but its answer comes after the
   * acquisition's deadline. The acquirer cannot know it holds a key; it fails, and its cleanup
   * revokes the lease, which takes the key with it, so the next acquirer gets the lock at once
   * instead of after the orphan key's whole TTL.
   */
  @Test
  void aLockKeyWhoseCreationAnswerCameTooLateIsRemovedAndTheNextAcquirerIsNotKeptWaiting() throws Exception {
    String prefix = TopoPaths.locksPrefix(paths.keyspaceDir("customer"));
    List<WatchEvent> seen = new CopyOnWriteArrayList<>();
    try (DelayedResponses delays = new DelayedResponses("etcdserverpb.KV/Txn");
        Client slow = Client.builder().endpoints(TestServices.etcdEndpoint()).interceptor(delays).build();
        EtcdLockService slowLocks = new EtcdLockService(slow, paths);
        Watch.Watcher watcher = etcd.getWatchClient().watch(EtcdClients.bytes(prefix),
            WatchOption.builder().isPrefix(true).build(), r -> seen.addAll(r.getEvents()))) {
      delays.delayNext(Duration.ofSeconds(6));
      Duration longTtl = Duration.ofMinutes(5);

      assertThatThrownBy(() -> slowLocks.lockKeyspace("customer", LockOptions.builder().action("late")
          .ttl(longTtl).acquireTimeout(Duration.ofSeconds(2)).build()))
          .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LOCK_TIMEOUT))
          .hasMessageContaining("did not answer in time while creating the lock key");

      // etcd did create the key, and the cleanup took it away again
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream().map(WatchEvent::getEventType).toList(),
          types -> types.contains(WatchEvent.EventType.PUT) && types.contains(WatchEvent.EventType.DELETE));
      assertThat(view.lockKeys(paths.keyspaceDir("customer"))).isEmpty();
      try (HeldLock next = locks.lockKeyspace("customer", LockOptions.builder().action("next").ttl(TTL)
          .acquireTimeout(Duration.ofSeconds(5)).build())) {
        assertThat(next.isHeld()).isTrue();
      }
    }
  }

  @Test
  void secondAcquirerWaitsUntilTheFirstReleases() throws Exception {
    HeldLock first = locks.lockKeyspace("customer", options("first"));
    Future<HeldLock> second = threads.submit(() -> locks.lockKeyspace("customer", options("second")));

    String dir = paths.keyspaceDir("customer");
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).size() == 2);
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !second.isDone());
    assertThat(first.isHeld()).isTrue();

    first.close();

    HeldLock got = second.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    assertThat(got.isHeld()).isTrue();
    assertThat(got.token().createRevision()).isGreaterThan(first.token().createRevision());
    assertThat(view.lockKeys(dir)).containsExactly(got.token().key());
    got.close();
  }

  @Test
  void waitersAreServedInOrderOfArrival() throws Exception {
    String dir = paths.keyspaceDir("customer");
    HeldLock first = locks.lockKeyspace("customer", options("first"));
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch releaseB = new CountDownLatch(1);
    CountDownLatch releaseC = new CountDownLatch(1);

    Future<?> b = threads.submit(() -> holdInTurn("B", order, releaseB));
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).size() == 2);
    Future<?> c = threads.submit(() -> holdInTurn("C", order, releaseC));
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).size() == 3);

    first.close();
    await().atMost(PATIENT).until(() -> order.equals(List.of("B")));
    await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2)).until(() -> order.size() == 1);

    releaseB.countDown();
    await().atMost(PATIENT).until(() -> order.equals(List.of("B", "C")));
    releaseC.countDown();
    b.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    c.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).isEmpty());
  }

  /**
   * S8: several processes' worth of acquirers (each with a lock service and etcd client of its
   * own) take the lock round after round. Inside the lock nobody else ever is, and each grant's
   * create revision, the fencing token, is higher than every one granted before it.
   */
  @Test
  void concurrentAcquirersRoundAfterRoundAreMutuallyExclusiveWithRisingTokens() throws Exception {
    int acquirers = 4;
    int rounds = 8;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    List<Long> grantedTokens = Collections.synchronizedList(new ArrayList<>());
    List<Future<?>> all = new ArrayList<>();
    for (int a = 0; a < acquirers; a++) {
      String name = "acquirer-" + a;
      all.add(threads.submit(() -> {
        try (Client own = TestEtcd.client(); EtcdLockService service = new EtcdLockService(own, paths)) {
          for (int r = 0; r < rounds; r++) {
            try (HeldLock lock = service.lockKeyspace("customer", options(name + "-" + r))) {
              mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
              grantedTokens.add(lock.token().fencingToken());
              lock.checkHeld(); // a round trip to etcd while inside, so the others really contend
              inside.decrementAndGet();
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : all) {
      f.get(PATIENT.toSeconds() * 2, TimeUnit.SECONDS);
    }

    assertThat(mostInside.get()).as("holders inside the lock at once").isEqualTo(1);
    assertThat(grantedTokens).hasSize(acquirers * rounds);
    assertThat(grantedTokens).as("tokens in the order granted").isSorted().doesNotHaveDuplicates();
    assertThat(view.lockKeys(paths.keyspaceDir("customer"))).isEmpty();
  }

  private Void holdInTurn(String name, List<String> order, CountDownLatch release) throws InterruptedException {
    try (HeldLock lock = locks.lockKeyspace("customer", options(name))) {
      order.add(name);
      release.await();
      assertThat(lock.isHeld()).isTrue();
    }
    return null;
  }

  @Test
  void aLockTakenTheVitessWayBlocksPointsmanUntilItsLeaseIsRevoked() throws Exception {
    String dir = paths.keyspaceDir("customer");
    VitessStyleLock vitess = VitessStyleLock.enqueue(etcd, dir, Duration.ofSeconds(60));
    assertThat(vitess.earlierHolder()).isEmpty();

    Future<HeldLock> ours = threads.submit(() -> locks.lockKeyspace("customer", options("SwitchWrites")));
    await().atMost(PATIENT).until(() -> view.lockKeys(dir).size() == 2);
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !ours.isDone());

    vitess.release();

    HeldLock got = ours.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    assertThat(got.token().createRevision()).isGreaterThan(vitess.revision());
    assertThat(view.holds(got.token())).isTrue();
    got.close();
  }

  /** The operator is told whom an acquisition waits for, from the holder's own lock value, once per holder. */
  @Test
  void aWaitingAcquisitionNamesTheHolderAheadOfItOnce() throws Exception {
    String dir = paths.keyspaceDir("customer");
    VitessStyleLock vitess = VitessStyleLock.enqueue(etcd, dir, Duration.ofSeconds(60));
    List<LockWait> waits = new CopyOnWriteArrayList<>();
    LockOptions waiting = LockOptions.builder().action("SwitchWrites").ttl(TTL).acquireTimeout(PATIENT)
        .waitListener(waits::add).build();

    Future<HeldLock> ours = threads.submit(() -> locks.lockKeyspace("customer", waiting));
    await().atMost(PATIENT).until(() -> !waits.isEmpty());
    assertThat(waits.get(0).resource()).contains("customer");
    assertThat(waits.get(0).aheadKey()).isEqualTo(vitess.key());
    assertThat(waits.get(0).describe()).contains("vtctld-test on vtctld-0 as vitess since 2025-01-01T00:00:00Z");
    assertThat(ours.isDone()).isFalse();

    vitess.release();
    HeldLock got = ours.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    assertThat(waits).hasSize(1);
    got.close();
  }

  @Test
  void aPointsmanLockBlocksAVitessStyleLocker() throws Exception {
    String dir = paths.keyspaceDir("customer");
    HeldLock ours = locks.lockKeyspace("customer", options("SwitchWrites"));
    VitessStyleLock vitess = VitessStyleLock.enqueue(etcd, dir, Duration.ofSeconds(60));

    assertThat(vitess.earlierHolder()).map(kv -> EtcdClients.string(kv.getKey())).contains(ours.token().key());
    Future<?> turn = threads.submit(() -> {
      vitess.awaitTurn(PATIENT);
      return null;
    });
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !turn.isDone());

    ours.close();

    turn.get(PATIENT.toSeconds(), TimeUnit.SECONDS);
    assertThat(vitess.earlierHolder()).isEmpty();
    vitess.release();
  }

  @Test
  void anAcquisitionThatTimesOutLeavesNoKeyAndNoLeaseBehind() throws Exception {
    String dir = paths.keyspaceDir("customer");
    HeldLock holder = locks.lockKeyspace("customer",
        LockOptions.builder().action("Holder").ttl(TTL).holder(new LockHolder("ns", "wf-holder", "run-1")).build());
    List<Long> leasesSeen = Collections.synchronizedList(new ArrayList<>());
    Watch.Watcher watcher = etcd.getWatchClient().watch(EtcdClients.bytes(TopoPaths.locksPrefix(dir)),
        // from just after the holder's key, so a put made before the watch is registered still shows
        WatchOption.builder().isPrefix(true).withNoDelete(true).withRevision(holder.token().createRevision() + 1)
            .build(),
        response -> response.getEvents().stream()
            .filter(e -> e.getEventType() == WatchEvent.EventType.PUT)
            .forEach(e -> leasesSeen.add(e.getKeyValue().getLease())));
    try {
      LockOptions impatient = LockOptions.builder().action("Impatient").ttl(TTL).acquireTimeout(Duration.ofSeconds(1))
          .build();

      assertThatThrownBy(() -> locks.lockKeyspace("customer", impatient))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.LOCK_TIMEOUT))
          .hasMessageContaining("keyspace customer")
          .hasMessageContaining("wf-holder");

      await().atMost(Duration.ofSeconds(10)).until(() -> leasesSeen.size() == 1);
      long ourLease = leasesSeen.get(0);
      assertThat(ourLease).isNotEqualTo(holder.token().leaseId());
      assertThat(view.leaseTtl(ourLease)).isEqualTo(-1);
      assertThat(view.lockKeys(dir)).containsExactly(holder.token().key());
      assertThat(holder.isHeld()).isTrue();
    } finally {
      watcher.close();
      holder.close();
    }
  }

  @Test
  void badNamesAreRejectedBeforeEtcdIsAsked() {
    // an etcd that does not exist: touching it would fail with UNAVAILABLE, not INVALID_ARGUMENT
    try (Client nowhere = TestEtcd.client("http://127.0.0.1:1");
        EtcdLockService unreachable = new EtcdLockService(nowhere, paths)) {
      LockOptions o = options("x");
      assertInvalid(() -> unreachable.lockKeyspace("a/b", o));
      assertInvalid(() -> unreachable.lockKeyspace("", o));
      assertInvalid(() -> unreachable.lockShard("customer", "80-40", o));
      assertInvalid(() -> unreachable.lockShard("customer", "../x", o));
      assertInvalid(() -> unreachable.lockNamed("customer/../x", o));
      assertInvalid(() -> unreachable.lockNamed("customer//x", o));
    }
  }

  private static void assertInvalid(Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void keyspaceAndShardLocksNeedTheResourceNamedLocksDoNot() throws Exception {
    assertThatThrownBy(() -> locks.lockKeyspace("nosuch", options("x")))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining("nosuch");
    assertThatThrownBy(() -> locks.lockShard("customer", "-80", options("x")))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining("customer/-80");

    view.createShard(paths, "customer", "-80");
    try (HeldLock shard = locks.lockShard("customer", "-80", options("x"));
        HeldLock named = locks.lockNamed("customer/commerce2customer", options("x"))) {
      assertThat(shard.token().key()).startsWith(paths.shardDir("customer", "-80") + "/locks/");
      assertThat(named.token().key())
          .isEqualTo(paths.namedLockDir("customer/commerce2customer") + "/locks/" + named.token().leaseId());
      assertThat(view.holds(shard.token())).isTrue();
      assertThat(view.holds(named.token())).isTrue();
    }
  }

  @Test
  void theLockKeyIsNamedAfterItsLeaseAndHoldsVitessJsonNamingTheHolder() throws Exception {
    LockOptions o = LockOptions.builder().action("SwitchWrites").ttl(TTL)
        .holder(new LockHolder("default", "switch-customer", "run-7")).build();
    try (HeldLock lock = locks.lockKeyspace("customer", o)) {
      LockToken token = lock.token();
      KeyValue kv = view.get(token.key()).orElseThrow();

      assertThat(token.key()).isEqualTo(paths.keyspaceDir("customer") + "/locks/" + token.leaseId());
      assertThat(kv.getLease()).isEqualTo(token.leaseId());
      assertThat(kv.getCreateRevision()).isEqualTo(token.createRevision());
      assertThat(token.ttl()).isEqualTo(TTL);
      assertThat(view.leaseTtl(token.leaseId())).isBetween(1L, TTL.toSeconds());
      JsonNode json = new ObjectMapper().readTree(EtcdClients.string(kv.getValue()));
      assertThat(json.get("Action").asText()).isEqualTo("SwitchWrites");
      assertThat(json.get("Status").asText()).isEqualTo("Running");
      assertThat(json.get("Options").size()).isZero();
      assertThat(OffsetDateTime.parse(json.get("Time").asText())).isNotNull();
      assertThat(json.get("HostName").asText()).isNotBlank();
      assertThat(json.get("UserName").asText()).isNotBlank();
      assertThat(json.get("TemporalNamespace").asText()).isEqualTo("default");
      assertThat(json.get("TemporalWorkflowId").asText()).isEqualTo("switch-customer");
      assertThat(json.get("TemporalRunId").asText()).isEqualTo("run-7");
    }
  }
}
