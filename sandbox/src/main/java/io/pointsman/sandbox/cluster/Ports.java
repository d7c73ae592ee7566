package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Loopback port checks; the sandbox listens on 127.0.0.1 only. */
public final class Ports {
  private static final int CONNECT_TIMEOUT_MS = 300;
  /** {@link #freePort}'s range: above the ports services commonly take, below the MariaDB spread. */
  private static final int LOWEST = 10_000;
  private static final int HIGHEST = 19_999;
  private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  /** {@link #spreadBasePort}'s blocks: 200 of 50 ports from 20000. */
  private static final int SPREAD_LOW = 20_000;
  private static final int SPREAD_BLOCKS = 200;
  static final int SPREAD_BLOCK = 50;
  /** Guarded, as {@link #CLAIMS}, by {@link #spreadBasePort}'s lock: only it reads or changes them. */
  private static final Set<Integer> BLOCKS_HANDED_OUT = new HashSet<>();
  /** The sockets by which this process holds its blocks ({@link #claim}); open until it ends. */
  private static final Map<Integer, ServerSocket> CLAIMS = new HashMap<>();
  /** The highest port {@link #freePort} gives: the kernel's range is read once, it does not change under a test. */
  private static final int FREE_HIGHEST = Math.min(HIGHEST, ephemeralLow() - 1);

  private Ports() {}

  /**
   * A port nothing listens on right now, at random between 10000 and 19999 and not handed out before
   * by this process: below the kernel's ephemeral range, and apart from {@link #spreadBasePort}'s
   * MariaDB ports. A port from the ephemeral range (a bind to port 0) may become the local port of
   * some outgoing connection while its server is stopped, and the server then cannot listen there
   * again: a CI run lost etcd's port so while a test had etcd down.
   */
  public static int freePort() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = LOWEST + ThreadLocalRandom.current().nextInt(Math.max(1, FREE_HIGHEST - LOWEST + 1));
      if (HANDED_OUT.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        HANDED_OUT.add(port);
        return port;
      } catch (IOException taken) {
        // in use: another try
      }
    }
    throw PointsmanException.unavailable("no free loopback port between " + LOWEST + " and " + FREE_HIGHEST
        + " after 200 tries", null);
  }

  /** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
  static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > LOWEST + 1000 ? low : DEFAULT_EPHEMERAL_LOW;
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

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
      if (isListening(port)) {
        return true;
      }
    }
    return false;
  }

  /** Whether something accepts connections on 127.0.0.1:port. */
  public static boolean isListening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_TIMEOUT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static void checkPort(String what, int port) {
    if (port < 1 || port > 65535) {
      throw PointsmanException.invalidArgument(what + " " + port + " is outside 1..65535");
    }
  }
}
