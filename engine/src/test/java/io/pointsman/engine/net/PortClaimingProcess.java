package io.pointsman.engine.net;

import java.io.IOException;

/**
 * A process beside the test's: takes a port from {@link LoopbackPorts}, prints it, and keeps its
 * claim until the test closes its standard input.
 */
public final class PortClaimingProcess {
  static final String PREFIX = "claimed ";

  private PortClaimingProcess() {}

  public static void main(String[] args) throws IOException {
    System.out.println(PREFIX + LoopbackPorts.freePort());
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for the end of the input
    }
  }
}
