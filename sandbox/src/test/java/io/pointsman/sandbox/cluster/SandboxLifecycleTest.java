package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.Timeout;

/**
 * Starting and stopping: down leaves nothing running, a failed up stops what it had started, a
 * sandbox left running is found and stopped from its state file, and running servers are reused
 * only when asked. Three primaries keep it quick; the servers are the same as in the full sandbox.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SandboxLifecycleTest extends SandboxFolderTest {
  @Test
  void downStopsEverythingItStartedAndClosesItsPorts() {
    Sandbox sandbox = Sandbox.up(options(0, 0).build());
    SandboxState state = new SandboxStateFile(dataDir).read().orElseThrow();
    assertThat(state.processes()).hasSize(4);
    assertThat(ServerProcesses.using(dataDir)).hasSize(4);

    sandbox.down();

    assertThat(ServerProcesses.using(dataDir)).isEmpty();
    for (SandboxState.ManagedProcess p : state.processes()) {
      assertThat(ProcessControl.isRunning(p.pid())).as("%s pid %d", p.name(), p.pid()).isFalse();
      assertThat(LoopbackPorts.isListening(p.port())).as("port of %s", p.name()).isFalse();
    }
    assertThat(new SandboxStateFile(dataDir).path()).doesNotExist();
    sandbox.down(); // idempotent
  }

  @Test
  void aFailedUpStopsWhatItHadStarted() throws IOException {
    int basePort = freeBasePort();
    int etcdPort = basePort + 3;
    // The second primary's port is taken: etcd and the first primary are already started by then.
    try (ServerSocket taken = new ServerSocket(basePort + 1, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(() -> Sandbox.up(options(basePort, etcdPort).build()))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
          .hasMessageContaining("port " + (basePort + 1) + " is already in use");
    }
    assertThat(ServerProcesses.using(dataDir)).isEmpty();
    assertThat(LoopbackPorts.isListening(etcdPort)).isFalse();
    assertThat(LoopbackPorts.isListening(basePort)).isFalse();
    assertThat(new SandboxStateFile(dataDir).path()).doesNotExist();
  }

  @Test
  void stopAllStopsASandboxLeftRunningByAnEarlierProcess() {
    Sandbox sandbox = Sandbox.up(options(0, 0).build());
    List<Integer> ports = sandbox.primaries().stream().map(RunningPrimary::port).toList();
    sandbox.detach();
    assertThat(ServerProcesses.using(dataDir)).hasSize(4);
    assertThat(ports).allMatch(LoopbackPorts::isListening);

    List<StoppedProcess> stopped = Sandbox.stopAll(dataDir, Duration.ofSeconds(30));

    assertThat(stopped).extracting(StoppedProcess::name).containsExactlyInAnyOrder(
        "etcd", "zone1-0000000100", "zone1-0000000300", "zone1-0000000400");
    assertThat(stopped).extracting(StoppedProcess::outcome).containsOnly(StopOutcome.STOPPED);
    assertThat(stopped.get(stopped.size() - 1).kind()).as("etcd stops last").isEqualTo(SandboxState.Kind.ETCD);
    assertThat(ServerProcesses.using(dataDir)).isEmpty();
    assertThat(ports).noneMatch(LoopbackPorts::isListening);
    assertThat(Sandbox.stopAll(dataDir, Duration.ofSeconds(30))).isEmpty();
  }

  @Test
  void reusesRunningServersOnlyWhenAskedAndLeavesThemToTheirOwner() throws SQLException {
    int basePort = freeBasePort();
    int etcdPort = basePort + 3;
    Sandbox first = Sandbox.up(options(basePort, etcdPort).build());
    List<Long> pids = ServerProcesses.using(dataDir);
    first.detach();

    assertThatThrownBy(() -> Sandbox.up(options(basePort, etcdPort).build()))
        .hasMessageContaining("is still running");
    assertThat(ServerProcesses.using(dataDir)).containsExactlyInAnyOrderElementsOf(pids);

    Sandbox second = Sandbox.up(options(basePort, etcdPort).reuseRunning(true).build());
    assertThat(second.primaries()).allMatch(RunningPrimary::reused);
    assertThat(ServerProcesses.using(dataDir)).containsExactlyInAnyOrderElementsOf(pids);
    try (Connection c = second.connect("commerce", "0");
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM vt_commerce.customer")) {
      rs.next();
      assertThat(rs.getLong(1)).as("sample rows are loaded once").isEqualTo(5);
    }
    assertThat(second.store().listShards("customer")).containsExactly("-80", "80-");

    second.down();
    assertThat(ServerProcesses.using(dataDir)).as("reused servers stay up").containsExactlyInAnyOrderElementsOf(pids);
    assertThat(Sandbox.stopAll(dataDir, Duration.ofSeconds(30))).hasSize(4);
    assertThat(ServerProcesses.using(dataDir)).isEmpty();
  }

  @Test
  void refusesADataFolderWhoseSocketPathIsTooLong() throws IOException {
    Path deep = Files.createDirectories(dataDir.resolve("x".repeat(60)).resolve("y".repeat(30)));
    assertThatThrownBy(() -> Sandbox.up(SandboxOptions.builder().dataDir(deep).basePort(0).etcdPorts(0, 0)
            .withoutReshardTargets().build()))
        .hasMessageContaining("longer than 107 bytes");
    assertThat(ServerProcesses.using(deep)).isEmpty();
  }

  /**
   * An Error on the way up (an assertion in a test's seam here; out of memory elsewhere) stops what
   * was started before it, as a failure does: etcd and the first primary had been launched.
   */
  @Test
  void anErrorWhileComingUpStopsWhatHadBeenStarted() {
    AtomicInteger portsGiven = new AtomicInteger();
    AssertionError boom = new AssertionError("no port for the second primary");
    IntSupplier ports = () -> {
      if (portsGiven.incrementAndGet() == 4) { // etcd's two, the first primary's, then this
        throw boom;
      }
      return LoopbackPorts.freePort();
    };
    assertThatThrownBy(() -> Sandbox.up(SandboxOptions.builder().dataDir(dataDir).basePort(0).etcdPorts(0, 0)
            .withoutReshardTargets().build(), ports))
        .isSameAs(boom);
    assertThat(portsGiven).hasValue(4);
    assertThat(ServerProcesses.using(dataDir)).as("servers left running").isEmpty();
    assertThat(new SandboxStateFile(dataDir).read()).isEmpty();
  }

  private SandboxOptions.Builder options(int basePort, int etcdPort) {
    return SandboxOptions.builder()
        .dataDir(dataDir)
        .basePort(basePort)
        .etcdPorts(etcdPort, 0)
        .withoutReshardTargets()
        .stopOnJvmExit(true);
  }

  /**
   * A base port whose next four ports are free: three primaries and etcd. It is chosen below the
   * kernel's ephemeral range (32768 and up), so a port the kernel hands out meanwhile (to etcd's
   * peer URL, to a client socket, to a test running beside this one) cannot land on it; CI once
   * failed with "port ... is already in use" when the base came from the ephemeral range.
   */
  private static int freeBasePort() {
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 200; attempt++) {
      int base = 20000 + random.nextInt(12000);
      if (canBindAll(base, 4)) {
        return base;
      }
    }
    throw new IllegalStateException("no four consecutive free ports found between 20000 and 32003");
  }

  private static boolean canBindAll(int base, int count) {
    for (int port = base; port < base + count; port++) {
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        s.setReuseAddress(true);
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }
}
