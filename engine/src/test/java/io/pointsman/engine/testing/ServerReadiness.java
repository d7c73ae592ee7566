package io.pointsman.engine.testing;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for a server a test started: healthy in time, or a failure that carries its log. */
final class ServerReadiness {
  private ServerReadiness() {}

  /** Whether {@code url} answers 200 within half a second (etcd's {@code /health}). */
  static boolean answersOk(String url) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(500);
      return c.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Polls {@code healthy} until it holds; fails at once when the process exits, and after
   * {@code timeout} otherwise, each time with the server's log.
   */
  static void await(Process process, BooleanSupplier healthy, Path log, String what, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (healthy.getAsBoolean()) {
        return;
      }
      if (!process.isAlive()) {
        throw new IOException(what + " exited: " + Files.readString(log));
      }
      Thread.sleep(100);
    }
    throw new IOException(what + " did not become healthy: " + Files.readString(log));
  }
}
