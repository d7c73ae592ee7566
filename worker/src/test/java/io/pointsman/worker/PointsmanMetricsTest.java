package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.testing.TestEtcd;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** pointsman's lock metrics, fed by a real lock service on the test etcd through the metered wrappers. */
@Timeout(60)
class PointsmanMetricsTest {
  private PrometheusMeterRegistry registry;
  private PointsmanMetrics metrics;
  private Client etcd;
  private EtcdLockService lockService;
  private LockService locks;

  @BeforeEach
  void setUp() {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics = new PointsmanMetrics(registry);
    etcd = metrics.meter(TestEtcd.client());
    lockService = new EtcdLockService(etcd, TestEtcd.freshPaths());
    locks = metrics.meter(lockService);
  }

  @AfterEach
  void tearDown() {
    lockService.close();
    etcd.close();
    registry.close();
  }

  private double count(String name, String tag, String value) {
    Counter c = registry.find(name).tag(tag, value).counter();
    return c == null ? 0 : c.count();
  }

  private double held() {
    return registry.get("pointsman.locks.held").gauge().value();
  }

  @Test
  void aHeldLockIsCountedWhileItIsRenewedAndItsLossByReason() throws Exception {
    HeldLock lock = locks.lockNamed("customer/commerce2customer",
        LockOptions.builder().action("metrics test").ttl(Duration.ofSeconds(3)).build());

    assertThat(count("pointsman.lock.acquisitions", "kind", "named")).isEqualTo(1);
    assertThat(held()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> count("pointsman.lock.renewals", "outcome", "renewed") >= 2);

    // somebody else revokes the lease: the next renewal finds it gone, and the loss is counted
    etcd.getLeaseClient().revoke(lock.token().leaseId()).get();

    await().atMost(Duration.ofSeconds(10)).until(() -> count("pointsman.lock.losses", "reason", "lease_gone") == 1);
    assertThat(held()).isZero();
    assertThat(registry.scrape()).contains("pointsman_lock_losses_total{reason=\"lease_gone\"} 1.0")
        .contains("pointsman_locks_held 0.0");
  }

  @Test
  void aReleasedLockIsNoLongerHeldAndNotALoss() {
    HeldLock lock = locks.lockNamed("customer/wf2", LockOptions.builder().action("metrics test").build());
    assertThat(held()).isEqualTo(1);

    lock.close();

    assertThat(held()).isZero();
    assertThat(registry.find("pointsman.lock.losses").counters()).isEmpty();
  }

  @Test
  void locksAttachedTogetherAreCountedAsHeld() {
    LockOptions options = LockOptions.builder().action("metrics test").build();
    // taken unmetered, as by a worker that died; attached through the metered service
    List<LockToken> tokens = List.of(lockService.lockNamed("customer/wf3", options).token(),
        lockService.lockNamed("customer/wf4", options).token());

    List<HeldLock> attached = locks.attachAll(tokens, t -> options, Instant.now());

    assertThat(held()).isEqualTo(2);
    attached.forEach(HeldLock::close);
    assertThat(held()).isZero();
  }

  @Test
  void stepNamesFollowTheProgressQuery() {
    assertThat(StepMetricsInterceptor.stepName("StopSourceWrites")).isEqualTo("stopSourceWrites");
    assertThat(StepMetricsInterceptor.stepName("acquireLocks")).isEqualTo("acquireLocks");
  }

  @Test
  void theWriteBarrierIsTimedFromStoppingWritesToChangingRouting() {
    metrics.stepStarted("stopSourceWrites", "wf/run", 1_000_000_000L);
    metrics.stepSucceeded("waitForCatchup", "wf/run", 1_100_000_000L);
    metrics.stepSucceeded("changeRouting", "wf/run", 1_250_000_000L);
    metrics.stepSucceeded("changeRouting", "wf/run", 9_000_000_000L); // a retry ends nothing new

    var timer = registry.get("pointsman.write.barrier.duration").tag("outcome", "switched").timer();
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(250);
  }
}
