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
