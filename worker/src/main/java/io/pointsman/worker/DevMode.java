package io.pointsman.worker;

import io.pointsman.client.TemporalOptions;
import io.temporal.testserver.TestServer;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporal without installing Temporal: the SDK's test server as a real gRPC endpoint on a port of
 * this machine (in this process, in real time, in memory), with search attributes registered and a
 * pointsman worker polling it. The CLI and any Temporal client can use its address; the Temporal
 * UI cannot (the test server has no visibility queries), for that use docker/'s compose stack.
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

  private final TestServer.PortBoundTestServer server;
  private final PointsmanWorker worker;
  private final String address;

  private DevMode(TestServer.PortBoundTestServer server, PointsmanWorker worker, String address) {
    this.server = server;
    this.worker = worker;
    this.address = address;
  }

  /**
   * Starts the test server on {@code port} and a worker against it; the worker's Temporal settings
   * other than namespace and task queue are replaced by the local server's.
   *
   * @throws ConfigException when the port is taken
   */
  public static DevMode start(int port, WorkerConfig config) {
    TestServer.PortBoundTestServer server;
    try {
      server = TestServer.createPortBoundServer(port);
    } catch (RuntimeException e) {
      throw new ConfigException("dev mode cannot serve Temporal on port " + port + " (DEV_TEMPORAL_PORT): "
          + e.getMessage(), e);
    }
    String address = "127.0.0.1:" + port;
    try {
      TemporalOptions local = TemporalOptions.builder()
          .address(address)
          .namespace(config.temporal().namespace())
          .taskQueue(config.temporal().taskQueue())
          .build();
      PointsmanWorker worker = PointsmanWorker.start(config.withTemporal(local));
      log.info("dev mode: Temporal test server on {}, namespace {}, worker on task queue {}", address,
          local.namespace(), local.taskQueue());
      return new DevMode(server, worker, address);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
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
      server.close();
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
    try {
      config = WorkerConfig.fromEnv(env);
      port = new Env(env).port("DEV_TEMPORAL_PORT", DEFAULT_PORT);
    } catch (ConfigException e) {
      System.err.println("pointsman dev mode: " + e.getMessage());
      System.exit(2);
      return;
    }
    WorkerMain.runUntilStopped("pointsman dev mode", () -> {
      DevMode dev = start(port, config);
      System.out.println("pointsman dev mode: Temporal on " + dev.address() + " (namespace "
          + config.temporal().namespace() + "), worker on task queue " + config.temporal().taskQueue()
          + ", etcd " + String.join(",", config.etcd().endpoints()) + ". Ctrl-C stops it.");
      System.out.println("Try: java -jar cli/target/pointsman-cli-*.jar --temporal-address "
          + dev.address() + " MoveTables --workflow commerce2customer --target-keyspace customer Status");
      return dev;
    });
  }
}
