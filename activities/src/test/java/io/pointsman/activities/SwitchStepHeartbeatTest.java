package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * createReverseVReplication, createJournals and changeRouting run as ordinary activities outside
 * the local chain (after a failure, past the point of no return), whose heartbeat timeout is 10 s:
 * one that does not heartbeat and takes longer is timed out and run again while it still runs.
 * Each heartbeats from its start. The topology here is empty, so each fails at once; what is
 * asserted is that it had heartbeated by then.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SwitchStepHeartbeatTest {
  private static final MigrationInfo INFO = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("customer"), List.of("0"), List.of("0"), List.of(new StreamRef("0", 1, "0")),
      42, false);
  private static final LockSet LOCKS = LockSet.of(new LockToken("/vitess/global/keyspaces/customer/locks/1",
      "keyspace customer", 1, 10, Duration.ofMinutes(2), Instant.now()));

  private Client etcd;
  private Services services;
  private TestActivityEnvironment env;
  private final AtomicInteger beats = new AtomicInteger();

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    services = new Services(etcd, TestEtcd.freshPaths(),
        MySqlOptions.builder().user("nobody").password("unused").build());
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new SwitchActivitiesImpl(services));
    env.setActivityHeartbeatListener(Object.class, details -> beats.incrementAndGet());
  }

  @AfterEach
  void tearDown() {
    env.close();
    services.close();
    etcd.close();
  }

  private void assertHeartbeats(Consumer<SwitchActivities> step) {
    SwitchActivities stub = env.newActivityStub(SwitchActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1))
        .setHeartbeatTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
    assertThatThrownBy(() -> step.accept(stub)).as("the empty topology fails the step").isNotNull();
    assertThat(beats.getAndSet(0)).as("heartbeats").isPositive();
  }

  @Test
  void createReverseVReplicationHeartbeats() {
    assertHeartbeats(s -> s.createReverseVReplication(INFO, Map.of("0", "MariaDB/0-1-1"), LOCKS));
  }

  @Test
  void createJournalsHeartbeats() {
    assertHeartbeats(s -> s.createJournals(INFO, Map.of("0", "MariaDB/0-1-1"), Map.of("0", "MariaDB/0-1-1"),
        List.of(), LOCKS));
  }

  @Test
  void changeRoutingHeartbeats() {
    assertHeartbeats(s -> s.changeRouting(INFO, LOCKS));
  }
}
