package io.pointsman.engine.net;

import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * Ports on 127.0.0.1 for servers this project starts itself: the sandbox's etcd and MariaDB, a
 * Temporal dev server, the etcds and MariaDBs tests start for themselves.
 */
public final class LoopbackPorts {
  private static final int CONNECT_TIMEOUT_MS = 300;
  /** {@link #freePort}'s range: above the ports services commonly take, below the sandbox's MariaDB blocks (20000 up). */
  private static final int LOWEST = 10_000;
  private static final int HIGHEST = 19_999;
  private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  /** The highest port {@link #freePort} gives: the kernel's range is read once, it does not change under a test. */
  private static final int FREE_HIGHEST = Math.min(HIGHEST, ephemeralLow() - 1);

  private LoopbackPorts() {}

  /**
   * A port nothing listens on right now, at random between 10000 and 19999, not handed out before
   * by this process nor claimed by another process on this machine that takes its ports here
   * ({@link PortClaims}): below the kernel's ephemeral range. A port from that range (a bind to port 0)
   * may become the local port of some outgoing connection before its server binds it, or while its
   * server is stopped: CI runs lost etcd's port so twice, once while a test had etcd down and once
   * between the choice and etcd's first start, with another test JVM busy beside it.
   */
  public static int freePort() {
    return freePort(() -> LOWEST + ThreadLocalRandom.current().nextInt(Math.max(1, FREE_HIGHEST - LOWEST + 1)));
  }

  /** {@link #freePort()} trying the candidates given, in their order: a test's seam. */
  static int freePort(IntSupplier candidates) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = candidates.getAsInt();
      if (HANDED_OUT.contains(port) || !bindable(port) || !PortClaims.claim(port)) {
        continue;
      }
      HANDED_OUT.add(port);
      return port;
    }
    throw PointsmanException.unavailable("no free loopback port between " + LOWEST + " and " + FREE_HIGHEST
        + " after 200 tries", null);
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  /** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
  public static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > LOWEST + 1000 ? low : DEFAULT_EPHEMERAL_LOW;
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
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
}
