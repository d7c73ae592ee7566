package io.pointsman.engine.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

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
}
