package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A port the sandbox chose is free when chosen and may be taken by another process before the
 * server started on it binds it (a test JVM beside this one did so in CI). The sandbox then starts
 * that server on another port; a port it was given is never replaced.
 *
 * <p>The other process is played by a socket bound to the port without listening: nothing accepts a
 * connection there, so the port looks free, yet mariadbd and etcd cannot bind it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxTakenPortTest extends SandboxFolderTest {
  private final List<Socket> holders = new ArrayList<>();

  @AfterEach
  void release() throws IOException {
    for (Socket s : holders) {
      s.close();
    }
  }

  @Test
  void aPrimaryWhosePortIsTakenBeforeItsServerBindsItStartsOnAnotherPort() throws Exception {
    int taken = heldPort();
    Sandbox sandbox = Sandbox.up(options().etcdPorts(LoopbackPorts.freePort(), LoopbackPorts.freePort()).build(),
        portsStartingWith(taken));
    try (sandbox) {
      List<RunningPrimary> primaries = sandbox.primaries();
      assertThat(primaries).extracting(RunningPrimary::port).doesNotContain(taken).doesNotHaveDuplicates();
      for (RunningPrimary p : primaries) {
        try (Connection c = sandbox.connect(p.primary().keyspace(), p.primary().shard())) {
          assertThat(c.isValid(2)).as("%s on port %d", p.primary(), p.port()).isTrue();
        }
        assertThat(sandbox.store().getRequired(sandbox.store().keys().tablet(p.alias())).value().mysqlPort())
            .as("the tablet record of %s", p.primary()).isEqualTo(p.port());
      }
      assertThat(recordedPorts(SandboxState.Kind.MARIADB))
          .containsExactlyInAnyOrderElementsOf(primaries.stream().map(RunningPrimary::port).toList());
    }
  }

  @Test
  void anEtcdWhosePortIsTakenBeforeItBindsItStartsOnAnotherPort() {
    int taken = heldPort();
    try (Sandbox sandbox = Sandbox.up(options().etcdPorts(0, 0).build(), portsStartingWith(taken))) {
      assertThat(sandbox.etcdEndpoint()).doesNotEndWith(":" + taken);
      assertThat(EtcdServerProcess.isHealthy(sandbox.etcdEndpoint())).isTrue();
      assertThat(sandbox.store().listKeyspaces()).contains("commerce", "customer");
      assertThat(recordedPorts(SandboxState.Kind.ETCD))
          .containsExactly(Integer.parseInt(sandbox.etcdEndpoint().replaceAll(".*:", "")));
    }
  }

  @Test
  void aServerThatLosesEveryPortItIsGivenFailsNamingThePortAndLeavesNothingRunning() {
    IntSupplier everyPortTaken = this::heldPort;
    assertThatThrownBy(() -> Sandbox.up(options()
            .etcdPorts(LoopbackPorts.freePort(), LoopbackPorts.freePort()).build(), everyPortTaken))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
          assertThat(e.getMessage()).contains("port " + holders.get(holders.size() - 1).getLocalPort())
              .contains("taken by another process");
        });
    assertThat(new SandboxStateFile(dataDir).read()).isEmpty();
    assertThat(holders.stream().map(Socket::getLocalPort)).noneMatch(LoopbackPorts::isListening);
  }

  @Test
  void aPortGivenInTheOptionsIsNotReplacedWhenTaken() throws Exception {
    int base = Ports.spreadBasePort();
    Socket holder = hold(base); // commerce/0 has offset 0
    assertThatThrownBy(() -> Sandbox.up(SandboxOptions.builder().dataDir(dataDir).basePort(base)
            .etcdPorts(0, 0).withoutReshardTargets().build(), LoopbackPorts::freePort))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.getMessage()).contains("port " + holder.getLocalPort()));
    assertThat(new SandboxStateFile(dataDir).read()).isEmpty();
  }

  private SandboxOptions.Builder options() {
    return SandboxOptions.builder().dataDir(dataDir).basePort(0).withoutReshardTargets().stopOnJvmExit(true);
  }

  private List<Integer> recordedPorts(SandboxState.Kind kind) {
    return new SandboxStateFile(dataDir).read().orElseThrow().processes().stream()
        .filter(p -> p.kind() == kind)
        .map(SandboxState.ManagedProcess::port)
        .toList();
  }

  /** Hands out {@code first}, then free ports. */
  private static IntSupplier portsStartingWith(int first) {
    Deque<Integer> queue = new ArrayDeque<>(List.of(first));
    return () -> queue.isEmpty() ? LoopbackPorts.freePort() : queue.poll();
  }

  /** A port this test holds bound, without listening on it. */
  private int heldPort() {
    try {
      return hold(0).getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Socket hold(int port) throws IOException {
    Socket s = new Socket();
    s.setReuseAddress(false); // a server's SO_REUSEADDR does not let it bind beside a socket without it
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    holders.add(s);
    return s;
  }
}
