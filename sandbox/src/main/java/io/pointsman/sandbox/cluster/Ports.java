package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The sandbox's MariaDB port blocks; single ports come from {@link LoopbackPorts}. The sandbox listens
 * on 127.0.0.1 only.
 */
public final class Ports {
  /** {@link #spreadBasePort}'s blocks: 200 of 50 ports from 20000. */
  private static final int SPREAD_LOW = 20_000;
  private static final int SPREAD_BLOCKS = 200;
  static final int SPREAD_BLOCK = 50;
  /** Guarded, as {@link #CLAIMS}, by {@link #spreadBasePort}'s lock: only it reads or changes them. */
  private static final Set<Integer> BLOCKS_HANDED_OUT = new HashSet<>();
  /** The sockets by which this process holds its blocks ({@link #claim}); open until it ends. */
  private static final Map<Integer, ServerSocket> CLAIMS = new HashMap<>();

  private Ports() {}

  /**
   * A first MariaDB port for a test world: the first of a block of {@value #SPREAD_BLOCK} ports
   * between 20000 and 29999 (below the kernel's ephemeral range) on none of which anything listens
   * now, the search starting at a block chosen by the process id, so that two suites running at once
   * on one machine do not collide. Blocks this process handed out before are skipped while others
   * are free: two worlds alive at once in one process (a class's own world beside the shared one)
   * got overlapping ports from the older spread by time, and a CI run's MariaDB could not start
   * ("port 29370 is already in use").
   */
  public static synchronized int spreadBasePort() {
    int first = (int) (ProcessHandle.current().pid() % SPREAD_BLOCKS);
    for (boolean skipHandedOut : new boolean[] {true, false}) {
      for (int i = 0; i < SPREAD_BLOCKS; i++) {
        int block = (first + i) % SPREAD_BLOCKS;
        int base = SPREAD_LOW + block * SPREAD_BLOCK;
        if (skipHandedOut && BLOCKS_HANDED_OUT.contains(block) || anyListening(base, SPREAD_BLOCK)
            || !claim(block, base)) {
          continue;
        }
        BLOCKS_HANDED_OUT.add(block);
        return base;
      }
    }
    throw PointsmanException.unavailable("no block of " + SPREAD_BLOCK + " free loopback ports between "
        + SPREAD_LOW + " and " + (SPREAD_LOW + SPREAD_BLOCKS * SPREAD_BLOCK - 1), null);
  }

  /**
   * Claims a block for this process by listening on its last port until the process ends (a world's
   * MariaDBs take the first ports of its block, one per primary, never the last). Nothing listens on a
   * block between its choice and its MariaDBs' start, seconds on a loaded machine: without the claim
   * a test JVM beside this one saw the block free meanwhile and took it too ("port 20201 is already
   * in use", a CI run with three test JVMs). The bind is the atomic part: a process that loses it
   * looks further. A block this process claimed before is claimed already.
   */
  private static boolean claim(int block, int base) {
    if (CLAIMS.containsKey(block)) {
      return true;
    }
    try {
      CLAIMS.put(block, new ServerSocket(base + SPREAD_BLOCK - 1, 1, InetAddress.getLoopbackAddress()));
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static boolean anyListening(int from, int count) {
    for (int port = from; port < from + count; port++) {
      if (LoopbackPorts.isListening(port)) {
        return true;
      }
    }
    return false;
  }

  static void checkPort(String what, int port) {
    if (port < 1 || port > 65535) {
      throw PointsmanException.invalidArgument(what + " " + port + " is outside 1..65535");
    }
  }
}
