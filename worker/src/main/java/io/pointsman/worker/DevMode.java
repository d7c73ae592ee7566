package io.pointsman.worker;

import io.pointsman.client.TemporalOptions;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporal on this machine with a pointsman worker polling it. The real Temporal server when its
 * binary is there (POINTSMAN_TEMPORAL_BIN or scripts/temporal.sh's cache; see
 * {@link TemporalDevServer}): a child process with its SQLite database in the run's data folder and
 * the Temporal Web UI on a port of its own. Otherwise the SDK's test server in this process (in
 * memory, no UI, no visibility queries), and a line says why. Either way search attributes are
 * registered by the worker and the CLI and any Temporal client can use {@link #address()}.
 */
public final class DevMode implements AutoCloseable {
  public static final int DEFAULT_PORT = 7233;
  private static final Logger log = LoggerFactory.getLogger(DevMode.class);
  /**
   * The sandbox's account, used when MYSQL_USER is unset: a throw-away account of MariaDB servers
   * that listen on loopback only (see io.pointsman.sandbox.cluster.MysqlCredentials).
   */
  private static final String SANDBOX_USER = "pointsman";
  private static final String SANDBOX_PASSWORD = "pointsman-sandbox";

  private final AutoCloseable server;
  private final PointsmanWorker worker;
  private final String address;
  private final Optional<String> uiUrl;
  private final String serverDescription;

  private DevMode(AutoCloseable server, PointsmanWorker worker, String address, Optional<String> uiUrl,
      String serverDescription) {
    this.server = server;
    this.worker = worker;
    this.address = address;
    this.uiUrl = uiUrl;
    this.serverDescription = serverDescription;
  }

  /** The SDK's test server only, as before the real server could be built here. */
  public static DevMode start(int port, WorkerConfig config) {
    return start(port, config, null, new TemporalDevServer.Lookup(Optional.empty(), "no data folder given"));
  }

  /**
   * Starts Temporal on {@code port} and a worker against it; the worker's Temporal settings other
   * than namespace and task queue are replaced by the local server's.
   *
   * @param dataDir where the real server keeps temporal.db and temporal.log; null for the test server
   * @param binary the real server's binary, or why there is none (then the test server is used)
   * @throws ConfigException when the port is taken
   */
  public static DevMode start(int port, WorkerConfig config, Path dataDir, TemporalDevServer.Lookup binary) {
    AutoCloseable server;
    String address = "127.0.0.1:" + port;
    Optional<String> ui = Optional.empty();
    String description;
    boolean eagerActivities; // TemporalDevServer turns them on; the SDK's test server has none
    if (dataDir != null && binary.binary().isPresent()) {
      TemporalDevServer real;
      try {
        real = TemporalDevServer.start(binary.binary().get(), dataDir, port);
      } catch (RuntimeException e) {
        throw new ConfigException("dev mode cannot start the Temporal dev server " + binary.binary().get()
            + " on port " + port + " (DEV_TEMPORAL_PORT): " + e.getMessage(), e);
      }
      server = real;
      eagerActivities = true;
      ui = Optional.of(real.workflowsUrl(config.temporal().namespace()));
      description = "Temporal dev server " + TemporalDevServer.CLI_VERSION + " (" + binary.binary().get()
          + "), database " + real.database();
    } else {
      System.out.println("pointsman dev mode: using the SDK's in-memory test server (no Temporal UI, no "
          + "visibility, nothing kept) because " + binary.why());
      try {
        server = TestServer.createPortBoundServer(port);
      } catch (RuntimeException e) {
        throw new ConfigException("dev mode cannot serve Temporal on port " + port + " (DEV_TEMPORAL_PORT): "
            + e.getMessage(), e);
      }
      description = "Temporal test server (in memory)";
      eagerActivities = false;
    }
    try {
      TemporalOptions local = TemporalOptions.builder()
          .address(address)
          .namespace(config.temporal().namespace())
          .taskQueue(config.temporal().taskQueue())
          .build();
      PointsmanWorker worker = PointsmanWorker.start(config.withTemporal(local), eagerActivities);
      log.info("dev mode: {} on {}, namespace {}, worker on task queue {}", description, address,
          local.namespace(), local.taskQueue());
      ui.ifPresent(u -> System.out.println("Temporal UI: " + u));
      return new DevMode(server, worker, address, ui, description);
    } catch (RuntimeException e) {
      closeQuietly(server);
      throw e;
    }
  }

  /** The Temporal UI's workflow list, when the real server runs. */
  public Optional<String> uiUrl() {
    return uiUrl;
  }

  /** Which server runs: the real dev server (and its database) or the in-memory test server. */
  public String serverDescription() {
    return serverDescription;
  }

  /** {@code 127.0.0.1:<port>}: what {@code --temporal-address} or TEMPORAL_ADDRESS should say. */
  public String address() {
    return address;
  }

  public PointsmanWorker worker() {
    return worker;
  }

  @Override
  public void close() {
    try {
      worker.close();
    } finally {
      closeQuietly(server);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.warn("closing {} failed: {}", c, e.toString());
    }
  }

  /** {@code java -jar pointsman-worker.jar dev}: dev mode until SIGTERM or Ctrl-C. */
  public static void main(String[] args) {
    Map<String, String> env = new HashMap<>(System.getenv());
    if (!env.containsKey("MYSQL_USER")) {
      env.put("MYSQL_USER", SANDBOX_USER);
      if (!env.containsKey("MYSQL_PASSWORD") && !env.containsKey("MYSQL_PASSWORD_FILE")) {
        env.put("MYSQL_PASSWORD", env.getOrDefault("POINTSMAN_SANDBOX_MYSQL_PASSWORD", SANDBOX_PASSWORD));
      }
    }
    WorkerConfig config;
    int port;
    Path dataDir;
    try {
      config = WorkerConfig.fromEnv(env);
      Env e = new Env(env);
      port = e.port("DEV_TEMPORAL_PORT", DEFAULT_PORT);
      dataDir = e.get("DEV_DATA_DIR").map(Path::of).orElse(null);
      if (dataDir == null) {
        dataDir = Files.createTempDirectory("pointsman-dev");
      }
    } catch (ConfigException | IOException e) {
      System.err.println("pointsman dev mode: " + e.getMessage());
      System.exit(2);
      return;
    }
    Path data = dataDir;
    TemporalDevServer.Lookup binary = TemporalDevServer.find(env);
    WorkerMain.runUntilStopped("pointsman dev mode", () -> {
      DevMode dev = start(port, config, data, binary);
      System.out.println("pointsman dev mode: " + dev.serverDescription() + " on " + dev.address() + " (namespace "
          + config.temporal().namespace() + "), worker on task queue " + config.temporal().taskQueue()
          + ", etcd " + String.join(",", config.etcd().endpoints()) + ". Ctrl-C stops it.");
      System.out.println("Try: java -jar cli/target/pointsman-cli-*.jar --temporal-address "
          + dev.address() + " MoveTables --workflow commerce2customer --target-keyspace customer Status");
      return dev;
    });
  }
}
