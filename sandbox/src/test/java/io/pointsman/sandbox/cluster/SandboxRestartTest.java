package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Outages on purpose: the sandbox's own etcd and one primary are taken down (cleanly or killed)
 * and started again, and come back where they were, with what they held, recorded under their new
 * PIDs so that down and stopAll still find them. One sandbox serves every case; each leaves it up.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxRestartTest {
  @TempDir
  static Path dataDir;
  private static Sandbox sandbox;

  @BeforeAll
  static void up() {
    sandbox = Sandbox.up(SandboxOptions.builder().dataDir(dataDir).basePort(0).etcdPorts(0, 0)
        .withoutReshardTargets().stopOnJvmExit(true).build());
  }

  @AfterAll
  static void down() {
    try {
      if (sandbox != null) {
        sandbox.down();
      }
    } finally {
      ServerProcesses.stopAll(dataDir);
    }
  }

  @ParameterizedTest
  @EnumSource(ServerStop.class)
  void etcdComesBackOnItsEndpointWithTheTopologyAndTheSandboxClientWorksAgain(ServerStop how) {
    String endpoint = sandbox.etcdEndpoint();
    List<String> keyspaces = sandbox.store().listKeyspaces();
    assertThat(keyspaces).contains("commerce", "customer");
    long pidBefore = recorded("etcd").pid();

    sandbox.stopEtcd(how);

    assertThat(EtcdServerProcess.isHealthy(endpoint)).isFalse();
    assertThat(ProcessControl.isRunning(pidBefore)).isFalse();
    assertThat(state().processes()).noneMatch(p -> p.name().equals("etcd"));

    sandbox.startEtcd();

    assertThat(sandbox.etcdEndpoint()).isEqualTo(endpoint);
    assertThat(EtcdServerProcess.isHealthy(endpoint)).isTrue();
    SandboxState.ManagedProcess etcd = recorded("etcd");
    assertThat(etcd.pid()).isNotEqualTo(pidBefore);
    assertThat(etcd.isRunning()).isTrue();
    // the client made before the outage reconnects on its own
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> sandbox.store().listKeyspaces().equals(keyspaces));
  }

  @ParameterizedTest
  @EnumSource(ServerStop.class)
  void aPrimaryComesBackOnItsPortWithItsCommittedRows(ServerStop how) throws SQLException {
    RunningPrimary commerce = sandbox.primary("commerce", "0");
    String name = commerce.alias().toString();
    long pidBefore = recorded(name).pid();
    long id = 1000 + how.ordinal();
    try (Connection c = sandbox.connect("commerce", "0"); Statement s = c.createStatement()) {
      s.execute("INSERT INTO vt_commerce.customer (customer_id, email) VALUES (" + id + ", 'kept@example.com')");
    }

    sandbox.stopPrimary("commerce", "0", how);

    assertThat(LoopbackPorts.isListening(commerce.port())).isFalse();
    assertThat(ProcessControl.isRunning(pidBefore)).isFalse();
    assertThat(state().processes()).noneMatch(p -> p.name().equals(name));

    sandbox.startPrimary("commerce", "0");

    SandboxState.ManagedProcess restarted = recorded(name);
    assertThat(restarted.pid()).isNotEqualTo(pidBefore);
    assertThat(restarted.port()).isEqualTo(commerce.port());
    assertThat(restarted.isRunning()).isTrue();
    try (Connection c = sandbox.connect("commerce", "0"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT email FROM vt_commerce.customer WHERE customer_id = " + id)) {
      assertThat(rs.next()).as("the row committed before the " + how).isTrue();
      assertThat(rs.getString(1)).isEqualTo("kept@example.com");
    }
  }

  @Test
  void startingWhatRunsIsRefused() {
    assertThatThrownBy(sandbox::startEtcd).isInstanceOfSatisfying(PointsmanException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION)).hasMessageContaining("already runs");
    assertThatThrownBy(() -> sandbox.startPrimary("customer", "-80"))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION)).hasMessageContaining("already runs");
  }

  private static SandboxState state() {
    return new SandboxStateFile(dataDir).read().orElseThrow();
  }

  private static SandboxState.ManagedProcess recorded(String name) {
    return state().processes().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }
}
