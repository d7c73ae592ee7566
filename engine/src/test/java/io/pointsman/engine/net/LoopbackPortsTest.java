package io.pointsman.engine.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LoopbackPortsTest {

  /**
   * Below the kernel's ephemeral range, so that no outgoing connection takes the port before its
   * server binds it or while the server is down, and below the sandbox's MariaDB blocks; free when
   * handed out; never the same twice in one process.
   */
  @Test
  void aFreePortIsBelowTheEphemeralRangeFreeAndNotHandedOutTwice() throws Exception {
    int ephemeralLow = LoopbackPorts.ephemeralLow();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = LoopbackPorts.freePort();
      assertThat(port).isBetween(10_000, Math.min(19_999, ephemeralLow - 1));
      assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
      assertThat(LoopbackPorts.isListening(port)).isFalse();
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
        assertThat(LoopbackPorts.isListening(port)).isTrue();
      }
    }
  }

  /**
   * Test JVMs run side by side and choose from the same range: a port another process took from
   * LoopbackPorts is not handed out here while that process lives, and is once it has ended.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aPortAnotherProcessTookIsNotHandedOutWhileThatProcessLives() throws Exception {
    Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), PortClaimingProcess.class.getName())
        .redirectErrorStream(true)
        .start();
    int theirs;
    try {
      theirs = claimedBy(other);
      List<Integer> tried = new ArrayList<>();
      int mine = LoopbackPorts.freePort(recording(tried, theirs));
      assertThat(tried.get(0)).isEqualTo(theirs);
      assertThat(mine).isNotEqualTo(theirs);
    } finally {
      other.getOutputStream().close();
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(LoopbackPorts.freePort(() -> theirs)).isEqualTo(theirs);
  }

  /** {@code first}, then random ports of the range, each recorded as tried. */
  private static IntSupplier recording(List<Integer> tried, int first) {
    return () -> {
      int port = tried.isEmpty() ? first : ThreadLocalRandom.current().nextInt(10_000, 19_000);
      tried.add(port);
      return port;
    };
  }

  private static int claimedBy(Process other) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(PortClaimingProcess.PREFIX)) {
        return Integer.parseInt(line.substring(PortClaimingProcess.PREFIX.length()).trim());
      }
    }
    throw new AssertionError("the other process ended without taking a port (exit " + other.waitFor() + ")");
  }
}
