package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.testing.EtcdProcess;
import io.pointsman.engine.testing.LogWatch;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record watch through an etcd outage: it keeps trying at its own pace (one new watcher per
 * re-watch delay, not a growing crowd of them), and once etcd is back it delivers what changed
 * while the rest of the client is answered at once.
 */
@Timeout(120)
class EtcdRecordWatchOutageTest {
  private static final Logger log = LoggerFactory.getLogger(EtcdRecordWatchOutageTest.class);
  private static final String REWATCH = "re-watching";
  /** At 500 ms between re-watches, two a second; four is twice that, for a loaded machine's bursts. */
  private static final double MAX_REWATCHES_PER_SECOND = 4;
  private static final int WATCHES = 5;

  @Test
  void anOutageIsWaitedOutAtTheRewatchPaceAndTheChangesAfterItAreDelivered() throws Exception {
    try (EtcdProcess etcdProcess = new EtcdProcess().start();
        Client etcd = TestEtcd.client(etcdProcess.endpoint());
        LogWatch rewatches = LogWatch.of(EtcdRecordWatch.class.getName())) {
      EtcdTopologyStore store = new EtcdTopologyStore(etcd, TestEtcd.freshPaths());
      List<List<Optional<Versioned<Shard>>>> seen = new CopyOnWriteArrayList<>();
      List<TopoWatch> watches = new CopyOnWriteArrayList<>();
      for (int i = 0; i < WATCHES; i++) {
        RecordKey<Shard> key = store.keys().shard("customer", "-" + (i + 1) + "0");
        store.create(key, Shard.of(KeyRange.ofShard("-" + (i + 1) + "0"), new TabletAlias("zone1", 100), true));
        List<Optional<Versioned<Shard>>> mine = new CopyOnWriteArrayList<>();
        seen.add(mine);
        watches.add(store.watch(key, mine::add));
      }
      // Negative control for the delivery count below: two watchers feeding one list, as a doubled
      // watcher would, must show up as twice the deliveries.
      RecordKey<Shard> first = store.keys().shard("customer", "-10");
      List<Optional<Versioned<Shard>>> doubled = new CopyOnWriteArrayList<>();
      watches.add(store.watch(first, doubled::add));
      watches.add(store.watch(first, doubled::add));
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.stream().allMatch(s -> s.size() == 1));

      long down = System.nanoTime();
      etcdProcess.kill();
      // long enough for several rounds of re-watching by every watch
      await().atMost(Duration.ofSeconds(60)).until(() -> rewatches.count(REWATCH) >= 6 * (WATCHES + 2));
      etcdProcess.start();
      double outageSeconds = (System.nanoTime() - down) / 1e9;
      int duringOutage = rewatches.count(REWATCH);
      log.info("{} re-watches of {} watches in an outage of {} s", duringOutage, WATCHES, outageSeconds);
      assertThat(duringOutage).as("re-watches in %.1f s of outage", outageSeconds)
          .isLessThanOrEqualTo((int) Math.ceil((WATCHES + 2) * MAX_REWATCHES_PER_SECOND * (outageSeconds + 1)));

      long back = System.nanoTime();
      for (int i = 0; i < WATCHES; i++) {
        RecordKey<Shard> key = store.keys().shard("customer", "-" + (i + 1) + "0");
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> store.update(key, s -> s.withDeniedTables(TabletType.PRIMARY, List.of("t"), false),
                TopologyStore.UNLOCKED) != null);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.stream().allMatch(s -> s.size() >= 2));
      log.info("every watch delivered its change {} ms after etcd was back", (System.nanoTime() - back) / 1_000_000);
      // Deliveries, not log lines: each watch hands over its first read and the one change, once
      // each, however many times it re-watched; a doubled watcher would deliver the change twice.
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> seen.stream().allMatch(s -> s.size() == 2));
      for (List<Optional<Versioned<Shard>>> s : seen) {
        assertThat(s).as("deliveries of one watch").hasSize(2);
        assertThat(s.get(0).orElseThrow().value().deniedTables(TabletType.PRIMARY)).isEmpty();
        assertThat(s.get(1).orElseThrow().value().deniedTables(TabletType.PRIMARY)).containsExactly("t");
        assertThat(s.get(1).orElseThrow().modRevision()).isGreaterThan(s.get(0).orElseThrow().modRevision());
      }
      assertThat(doubled).as("the doubled watcher's deliveries, which the count above would refuse").hasSize(4);
      watches.forEach(TopoWatch::close);
    }
  }
}
