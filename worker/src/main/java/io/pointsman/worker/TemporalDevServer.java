package io.pointsman.worker;

import io.pointsman.engine.net.LoopbackPorts;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Temporal server as a child process: the Temporal CLI's {@code server start-dev} (frontend,
 * history, matching and worker services in one process, SQLite persistence with visibility, and the
 * Web UI), every port on 127.0.0.1, its database at {@code <dataDir>/temporal.db} and its output in
 * {@code <dataDir>/temporal.log}. {@link #restart()} stops it and starts it again on the same
 * database and ports, so clients and workers reconnect by themselves. scripts/temporal.sh builds the
 * binary (see docs/real-temporal.md).
 */
public final class TemporalDevServer implements AutoCloseable {
  /** The CLI version scripts/temporal.sh builds (tools/temporal/go.mod); the cache folder is named by it. */
  public static final String CLI_VERSION = "v1.5.1";
  private static final Logger log = LoggerFactory.getLogger(TemporalDevServer.class);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  /** The server's dynamic config key that lets it hand an activity to the worker that scheduled it. */
  private static final String EAGER_ACTIVITIES = "system.enableActivityEagerExecution";

  private final Path binary;
  private final Path dataDir;
  private final int grpcPort;
  private final int uiPort;
  private final int httpPort;
  private final int metricsPort;
  private final boolean eagerActivities;
  private Process process;
  /** Stops the server when the JVM ends without closing it (a test run killed, Ctrl-C); else it runs on. */
  private final Thread stopOnExit = new Thread(this::stop, "temporal-dev-server-exit");

  private TemporalDevServer(Path binary, Path dataDir, int grpcPort, int uiPort, int httpPort, int metricsPort,
      boolean eagerActivities) {
    this.binary = binary;
    this.dataDir = dataDir;
    this.grpcPort = grpcPort;
    this.uiPort = uiPort;
    this.httpPort = httpPort;
    this.metricsPort = metricsPort;
    this.eagerActivities = eagerActivities;
  }

  /**
   * Where the binary is: POINTSMAN_TEMPORAL_BIN, else scripts/temporal.sh's cache
   * ({@code ${POINTSMAN_CACHE:-$HOME/.cache/pointsman}/temporal-cli-v1.5.1/temporal}).
   *
   * @return the executable, or why there is none (for the line that says what dev mode uses instead)
   */
  public static Lookup find(Map<String, String> env) {
    String explicit = env.get("POINTSMAN_TEMPORAL_BIN");
    if (explicit != null && !explicit.isBlank()) {
      Path p = Path.of(explicit.trim());
      return Files.isExecutable(p) ? new Lookup(Optional.of(p), "POINTSMAN_TEMPORAL_BIN=" + p)
          : new Lookup(Optional.empty(), "POINTSMAN_TEMPORAL_BIN=" + p + " is not an executable file");
    }
    String cache = env.getOrDefault("POINTSMAN_CACHE", env.getOrDefault("HOME", System.getProperty("user.home"))
        + "/.cache/pointsman");
    Path p = Path.of(cache, "temporal-cli-" + CLI_VERSION, "temporal");
    return Files.isExecutable(p) ? new Lookup(Optional.of(p), p.toString())
        : new Lookup(Optional.empty(), "POINTSMAN_TEMPORAL_BIN is unset and " + p
            + " does not exist (./scripts/temporal.sh build makes it)");
  }

  /** The binary found, or empty with {@code why} saying where it looked. */
  public record Lookup(Optional<Path> binary, String why) {}

  /** Starts on free ports and waits until the frontend answers and the UI serves its page. */
  public static TemporalDevServer start(Path binary, Path dataDir) {
    return start(binary, dataDir, 0);
  }

  /**
   * @param grpcPort the frontend's port; 0 for a free one
   * @throws IllegalStateException when the server exits or does not become ready within 2 minutes
   */
  public static TemporalDevServer start(Path binary, Path dataDir, int grpcPort) {
    return start(binary, dataDir, grpcPort, true);
  }

  /**
   * @param eagerActivities whether the server hands a worker the activities it asks to run eagerly;
   *     pointsman wants it (docs/real-temporal.md), off only to see a server without it
   */
  public static TemporalDevServer start(Path binary, Path dataDir, int grpcPort, boolean eagerActivities) {
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TemporalDevServer s = new TemporalDevServer(binary, dataDir.toAbsolutePath(),
        grpcPort > 0 ? grpcPort : LoopbackPorts.freePort(), LoopbackPorts.freePort(), LoopbackPorts.freePort(),
        LoopbackPorts.freePort(), eagerActivities);
    Runtime.getRuntime().addShutdownHook(s.stopOnExit);
    try {
      s.launch();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** {@code 127.0.0.1:<port>} of the gRPC frontend. */
  public String address() {
    return "127.0.0.1:" + grpcPort;
  }

  /** {@code http://127.0.0.1:<port>} of the Web UI. */
  public String uiUrl() {
    return "http://127.0.0.1:" + uiPort;
  }

  /** {@code http://127.0.0.1:<port>/metrics}: the server's own metrics, in Prometheus's text format. */
  public String metricsUrl() {
    return "http://127.0.0.1:" + metricsPort + "/metrics";
  }

  /** The UI's list of a namespace's workflows. */
  public String workflowsUrl(String namespace) {
    return uiUrl() + "/namespaces/" + namespace + "/workflows";
  }

  public Path database() {
    return dataDir.resolve("temporal.db");
  }

  public Path logFile() {
    return dataDir.resolve("temporal.log");
  }

  public long pid() {
    return process.pid();
  }

  /** Stops the server (SIGTERM) and starts it again on the same database and ports. */
  public void restart() {
    stop();
    launch();
  }

  /** SIGTERM, then SIGKILL if it is still running after 30 s. */
  public void stop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        log.warn("Temporal dev server {} ignored SIGTERM for {}; killing it", p.pid(), STOP_TIMEOUT);
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(stopOnExit);
    } catch (IllegalStateException exiting) {
      // the JVM is already shutting down: the hook is running or has run
    }
  }

  private void launch() {
    List<String> cmd = new ArrayList<>(List.of(binary.toString(), "server", "start-dev",
        // --ip binds the frontend, the internal services, the HTTP API and metrics to loopback;
        // --ui-ip the UI. No --headless: in start-dev it turns the UI off.
        "--ip", "127.0.0.1", "--ui-ip", "127.0.0.1",
        "--port", Integer.toString(grpcPort), "--ui-port", Integer.toString(uiPort),
        "--http-port", Integer.toString(httpPort), "--metrics-port", Integer.toString(metricsPort),
        "--db-filename", database().toString(), "--log-level", "warn",
        // On (unless a test asks otherwise): holdLocks starts in the answer to the workflow task that
        // schedules it, in the worker that took the locks, without a trip through matching (docs/real-temporal.md)
        "--dynamic-config-value", EAGER_ACTIVITIES + "=" + eagerActivities));
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + binary + ": " + e.getMessage(), e);
    }
    long started = System.nanoTime();
    try {
      awaitReady();
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
    log.info("Temporal dev server {} ready in {} ms: frontend {}, UI {}, database {}", process.pid(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), address(), uiUrl(), database());
  }

  /** The frontend answers GetSystemInfo and the UI serves 200; polled, as the server gives no signal. */
  private void awaitReady() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(address()).build());
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    try {
      boolean frontend = false;
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the Temporal dev server exited with " + process.exitValue()
              + " before it was ready; see " + logFile());
        }
        try {
          if (!frontend) {
            stubs.blockingStub().withDeadlineAfter(2, TimeUnit.SECONDS)
                .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
            frontend = true;
          }
          HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(uiUrl() + "/"))
              .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            return;
          }
        } catch (IOException | RuntimeException notYet) {
          // not listening yet
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for the Temporal dev server", e);
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("the Temporal dev server at " + address() + " (UI " + uiUrl()
              + ") was not ready within " + START_TIMEOUT + "; see " + logFile());
        }
        try {
          Thread.sleep(250); // poll interval of the readiness probe
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for the Temporal dev server", e);
        }
      }
    } finally {
      stubs.shutdownNow();
    }
  }
}
