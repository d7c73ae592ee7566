package io.pointsman.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.topo.TopoPaths;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lock section on the test etcd, with sizes small enough for CI. */
class LockBenchTest {
  private static final Duration TTL = Duration.ofSeconds(2);

  @Test
  @Timeout(60)
  void measuresEveryFigureAndLosesNoLock() throws Exception {
    String endpoint = System.getenv("POINTSMAN_TEST_ETCD");
    assertThat(endpoint).as("POINTSMAN_TEST_ETCD (run the tests with ./scripts/test.sh)").isNotBlank();
    // a root of its own, as every test on the shared etcd has, so cleanup can be checked exactly
    String base = "/pointsman-test/" + UUID.randomUUID();
    TopoPaths paths = new TopoPaths(base + "/global", base);
    LockBench.Options options = new LockBench.Options(5, 10, TTL, Duration.ofSeconds(6));

    try (Client etcd = EtcdClients.create(EtcdOptions.builder().endpoints(endpoint).build())) {
      LockBench.Figures f = LockBench.run(etcd, paths, options);
      String md = LockBench.markdown(f);
      System.out.println(md);

      for (Stats s : List.of(f.rawTxn(), f.rawAcquire(), f.rawRelease(), f.rawLock(), f.acquire(), f.release(),
          f.lock())) {
        assertThat(s.count()).isEqualTo(5);
        assertThat(s.samples()[0]).isPositive();
      }
      // the floor is a subset of what the service does, and a whole round is both halves
      assertThat(f.rawLock().p50()).isGreaterThan(f.rawTxn().p50());
      assertThat(f.lock().max()).isGreaterThanOrEqualTo(f.acquire().max());

      LockBench.Renewal r = f.renewal();
      assertThat(r.lossReports()).isEmpty();
      assertThat(r.losses()).isZero();
      assertThat(r.locks()).isEqualTo(10);
      assertThat(r.ttl()).isEqualTo(TTL);
      assertThat(r.renewInterval()).isEqualTo(TTL.dividedBy(3));
      assertThat(r.heldFor()).isGreaterThanOrEqualTo(Duration.ofSeconds(6));
      // at a third of the TTL, 6 s give each lock about nine renewals; a third of that is a floor
      // no working renewer misses, however loaded the machine
      assertThat(r.renewals()).isGreaterThanOrEqualTo(30);
      assertThat(r.failedRenewals()).isZero();
      // one gap per renewal, plus the open one at the end of each lock
      assertThat((long) r.gaps().count()).isEqualTo(r.renewals() + 10);
      assertThat(r.gaps().max()).isLessThan(TTL);

      assertThat(md).startsWith("## Locks\n")
          .contains("| acquire | " + f.acquire().summaryMillis() + " | " + f.rawAcquire().summaryMillis() + " |")
          .contains("| release | " + f.release().summaryMillis() + " | " + f.rawRelease().summaryMillis() + " |")
          .contains("| acquire + release | " + f.lock().summaryMillis())
          .contains("| create transaction alone | – | " + f.rawTxn().summaryMillis())
          .contains("| 10 | 2 s | ", " | " + r.renewals() + " | 0 | " + r.gaps().summaryMillis() + " | **0** |")
          .doesNotContain("Lost:");

      long left = etcd.getKVClient().get(EtcdClients.bytes(base + "/"),
          io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(10, TimeUnit.SECONDS).getCount();
      assertThat(left).as("keys left under " + base).isZero();
    }
  }

  @Test
  void aLossIsShownWithItsReport() {
    Stats one = new Stats(new long[] {1_000_000});
    LockBench.Renewal r = new LockBench.Renewal(3, TTL, TTL.dividedBy(3), Duration.ofSeconds(30), 120, 2,
        new Stats(new long[] {600_000_000L, 2_100_000_000L}), 1,
        List.of("lockbench/run-x/renew-1: RENEWAL_FAILED: no renewal succeeded"));
    String md = LockBench.markdown(new LockBench.Figures(one, one, one, one, one, one, one, r));

    assertThat(md).contains("| 3 | 2 s | 30.0 s | 120 | 2 | 600 / 2100 / 2100 | **1** |")
        .contains("Lost:\n\n- lockbench/run-x/renew-1: RENEWAL_FAILED: no renewal succeeded");
  }

  @Test
  void optionsMustBePositive() {
    assertThatThrownBy(() -> new LockBench.Options(0, 10, TTL, TTL)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockBench.Options(5, 0, TTL, TTL)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockBench.Options(5, 10, Duration.ZERO, TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LockBench.Options(5, 10, TTL, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
