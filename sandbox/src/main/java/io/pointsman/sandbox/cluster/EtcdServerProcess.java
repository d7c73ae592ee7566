package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.net.LoopbackPorts;
import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-member etcd on loopback, for a sandbox that brings its own topology server. The data
 * folder survives {@link #close()}, so starting again on the same folder brings the same topology
 * back. A failed start stops the process before reporting.
 */
public final class EtcdServerProcess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdServerProcess.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final int HEALTH_TIMEOUT_MS = 500;
  private static final String MEMBER_NAME = "sandbox";

  private final EtcdServerOptions options;
  private final Process process;
  private volatile boolean closed;

  private EtcdServerProcess(EtcdServerOptions options, Process process) {
    this.options = options;
    this.process = process;
  }

  /**
   * Starts etcd and waits until {@code /health} answers.
   *
   * @throws PointsmanException FAILED_PRECONDITION if a port is taken; UNAVAILABLE if etcd exits or
   *     is not healthy in time
   */
  public static EtcdServerProcess start(EtcdServerOptions options) {
    for (int port : new int[] {options.clientPort(), options.peerPort()}) {
      if (LoopbackPorts.isListening(port)) {
        throw PointsmanException.failedPrecondition("port " + port + " is already in use; stop what listens "
            + "there, pass the running etcd's endpoint, or let the sandbox reuse running servers");
      }
    }
    String peer = "http://127.0.0.1:" + options.peerPort();
    List<String> command = List.of(
        options.binary(),
        "--name", MEMBER_NAME,
        "--data-dir", options.dataDir().toString(),
        "--listen-client-urls", options.endpoint(),
        "--advertise-client-urls", options.endpoint(),
        "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer,
        "--initial-cluster", MEMBER_NAME + "=" + peer);
    Process p;
    try {
      Files.createDirectories(options.folder());
      p = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(options.log().toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
    } catch (IOException e) {
      throw PointsmanException.failedPrecondition("cannot start " + options.binary() + ": " + e.getMessage());
    }
    log.info("started etcd pid {} on {} (folder {})", p.pid(), options.endpoint(), options.folder());
    EtcdServerProcess etcd = new EtcdServerProcess(options, p);
    etcd.awaitHealthy();
    return etcd;
  }

  public long pid() {
    return process.pid();
  }

  public String endpoint() {
    return options.endpoint();
  }

  public EtcdServerOptions options() {
    return options;
  }

  public boolean isRunning() {
    return ProcessControl.isRunning(process.toHandle());
  }

  /** The text that identifies this etcd's command line, for stopping it by PID from elsewhere. */
  public static String commandLineMarker(Path folder) {
    return folder.toAbsolutePath().normalize().resolve("data").toString();
  }

  /** Whether an etcd answers {@code /health} with "true" at the endpoint. */
  public static boolean isHealthy(String endpoint) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(endpoint + "/health").toURL().openConnection();
      c.setConnectTimeout(HEALTH_TIMEOUT_MS);
      c.setReadTimeout(HEALTH_TIMEOUT_MS);
      try {
        return c.getResponseCode() == 200 && new String(c.getInputStream().readAllBytes()).contains("true");
      } finally {
        c.disconnect();
      }
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  /** Stops etcd: SIGTERM, then SIGKILL after the stop timeout. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    StopOutcome outcome = ProcessControl.stop(process.toHandle(), options.stopTimeout());
    log.info("etcd pid {} on {}: {}", process.pid(), options.endpoint(), outcome);
  }

  /** Kills etcd at once (SIGKILL), as a crash would; a later start on the folder recovers its data. Idempotent. */
  public void kill() {
    if (closed) {
      return;
    }
    closed = true;
    StopOutcome outcome = ProcessControl.kill(process.toHandle());
    log.info("etcd pid {} on {}: {}", process.pid(), options.endpoint(), outcome);
  }

  private void awaitHealthy() {
    long deadline = System.nanoTime() + options.startTimeout().toNanos();
    try {
      while (!isHealthy(options.endpoint())) {
        if (!process.isAlive()) {
          throw failure("etcd exited with status " + process.exitValue() + " while starting");
        }
        if (System.nanoTime() - deadline > 0) {
          throw failure("etcd on " + options.endpoint() + " was not healthy within " + options.startTimeout());
        }
        Thread.sleep(POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure("interrupted while waiting for etcd on " + options.endpoint());
    }
  }

  private PointsmanException failure(String message) {
    PointsmanException e = PointsmanException.unavailable(
        message + "; last lines of " + options.log() + ":\n" + MariaDbProcess.tail(options.log()), null);
    try {
      close();
    } catch (RuntimeException stopFailure) {
      e.addSuppressed(stopFailure);
    }
    return e;
  }
}
