package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback port checks; the sandbox listens on 127.0.0.1 only. */
public final class Ports {
  private static final int CONNECT_TIMEOUT_MS = 300;

  private Ports() {}

  /** A port nothing listens on right now, chosen by the kernel. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw PointsmanException.unavailable("cannot find a free loopback port", e);
    }
  }

  /**
   * A first MariaDB port for a test world, spread by process and time between 20000 and 29999 (below
   * the kernel's ephemeral range), so two suites running at once on one machine do not collide.
   */
  public static int spreadBasePort() {
    return 20000 + (int) (ProcessHandle.current().pid() % 200) * 50 + (int) (System.nanoTime() % 40);
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
