package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.engine.net.LoopbackPorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class PortsTest {

  /**
   * Two worlds alive at once in one process get blocks that do not overlap, and a block where
   * something listens is passed over.
   */
  @Test
  void baseMariaDbPortsAreWholeFreeBlocksNeverHandedOutTwiceWhileOthersAreFree() throws Exception {
    int first = Ports.spreadBasePort();
    int listened = first + Ports.SPREAD_BLOCK + 3 >= 30_000 ? 20_003 : first + Ports.SPREAD_BLOCK + 3;
    try (ServerSocket s = new ServerSocket(listened, 1, InetAddress.getLoopbackAddress())) {
      int second = Ports.spreadBasePort();
      for (int base : new int[] {first, second}) {
        assertThat(base).isBetween(20_000, 30_000 - Ports.SPREAD_BLOCK);
        assertThat((base - 20_000) % Ports.SPREAD_BLOCK).isZero();
      }
      assertThat(Math.abs(second - first)).as("blocks apart").isGreaterThanOrEqualTo(Ports.SPREAD_BLOCK);
      assertThat(listened >= second && listened < second + Ports.SPREAD_BLOCK)
          .as("the block with a listener on %d is passed over, got %d", listened, second).isFalse();
    }
  }

  /**
   * A block handed out is claimed at once, before its MariaDBs start: its last port listens, so a
   * test JVM beside this one passes it over (it checks for listeners), while the first ports stay
   * free for the primaries.
   */
  @Test
  void aBlockHandedOutIsClaimedOnItsLastPortAtOnceAndLeavesItsFirstPortsFree() {
    int base = Ports.spreadBasePort();
    assertThat(LoopbackPorts.isListening(base + Ports.SPREAD_BLOCK - 1)).as("the claim on the block's last port").isTrue();
    for (int port = base; port < base + 20; port++) {
      assertThat(LoopbackPorts.isListening(port)).as("port %d of the block", port).isFalse();
    }
  }
}
