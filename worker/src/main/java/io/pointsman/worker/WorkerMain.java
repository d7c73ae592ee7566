package io.pointsman.worker;

import io.pointsman.worker.check.CheckConfigMain;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar pointsman-worker.jar}: a worker configured from the environment alone
 * ({@link WorkerConfig#fromEnv}), running until SIGTERM or SIGINT, which stop it gracefully.
 * {@code java -jar pointsman-worker.jar dev} runs {@link DevMode} instead. Exit codes: 2 for a bad
 * setting, 1 when it cannot start; a stop by signal exits as the JVM does on that signal (143 for
 * SIGTERM) once the worker has stopped. {@code validate} and {@code check-config} run and exit (see
 * {@link ValidateMain}, {@link CheckConfigMain}).
 */
public final class WorkerMain {
  private static final Logger log = LoggerFactory.getLogger(WorkerMain.class);

  private WorkerMain() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equalsIgnoreCase("validate")) {
      System.exit(ValidateMain.run(Arrays.copyOfRange(args, 1, args.length), System.getenv(), System.out,
          System.err));
      return;
    }
    if (args.length > 0 && args[0].equalsIgnoreCase("check-config")) {
      System.exit(CheckConfigMain.run(Arrays.copyOfRange(args, 1, args.length), System.getenv(), System.out,
          System.err));
      return;
    }
    if (args.length > 0 && args[0].equals("dev")) {
      DevMode.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0) {
      System.out.println(usage());
      System.exit(args[0].equals("--help") || args[0].equals("-h") ? 0 : 2);
    }
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnv();
    } catch (ConfigException e) {
      System.err.println("pointsman worker: " + e.getMessage());
      System.exit(2);
      return;
    }
    log.info("pointsman worker starting: {}", config);
    runUntilStopped("pointsman worker", () -> PointsmanWorker.start(config));
  }

  /**
   * Starts something and blocks until the JVM is asked to stop, when a shutdown hook closes it; the
   * hook returns (and the JVM exits) only once it is closed.
   */
  static void runUntilStopped(String what, Supplier<? extends AutoCloseable> starter) {
    AutoCloseable running;
    try {
      running = starter.get();
    } catch (ConfigException e) {
      System.err.println(what + ": " + e.getMessage());
      System.exit(2);
      return;
    } catch (RuntimeException e) {
      log.error("{} did not start: {}", what, e.getMessage(), e);
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log.info("{}: stop requested", what);
      try {
        running.close();
      } catch (Exception e) {
        log.error("{} did not stop cleanly", what, e);
      } finally {
        stopped.countDown();
      }
    }, "pointsman-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String usage() {
    return String.join("\n",
        "Usage: java -jar pointsman-worker.jar        run a worker configured from the environment",
        "       java -jar pointsman-worker.jar dev    dev mode: a Temporal dev server (or the SDK's test server), and a worker",
        "       java -jar pointsman-worker.jar validate --workflow W --target-keyspace K",
        "                                             check the workflow's topology, primaries and locks",
        "       java -jar pointsman-worker.jar check-config [--mysql HOST:PORT/DATABASE]...",
        "                                             connect to etcd, the primaries and Temporal with these settings",
        "                                             and report what works and what is missing; changes nothing",
        "",
        "Environment (defaults in brackets):",
        "  TEMPORAL_ADDRESS [127.0.0.1:7233]  TEMPORAL_NAMESPACE [default]  POINTSMAN_TASK_QUEUE [pointsman]",
        "  TEMPORAL_TLS [on when a cert, CA or API key is set]  TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY (PKCS#8),",
        "  TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE",
        "  ETCD_ENDPOINTS [http://127.0.0.1:2379, comma-separated]  ETCD_USER, ETCD_PASSWORD or ETCD_PASSWORD_FILE,",
        "  ETCD_CA_FILE, ETCD_CERT_FILE, ETCD_KEY_FILE",
        "  TOPO_GLOBAL_ROOT [/vitess/global]  TOPO_CELL_ROOT_PREFIX [/vitess]",
        "  MYSQL_USER (required), MYSQL_PASSWORD or MYSQL_PASSWORD_FILE, MYSQL_TLS_MODE [PREFERRED; DISABLED,",
        "  REQUIRED, VERIFY_CA, VERIFY_IDENTITY], MYSQL_TLS_CA_FILE, MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL [false],",
        "  MYSQL_POOL_SIZE [4]",
        "  METRICS_PORT [9464; 0 turns /metrics off]  WORKER_SHUTDOWN_GRACE [30s]",
        "  VTORC_ADDRESSES [none; comma-separated host:port of VTOrc HTTP ports, asked before each write window]",
        "  VTTABLET_GRPC_CA_FILE, VTTABLET_GRPC_CERT_FILE, VTTABLET_GRPC_KEY_FILE (PKCS#8), VTTABLET_GRPC_SERVER_NAME",
        "  [plaintext; any turns TLS on for vttablet gRPC, as vttablet's --grpc-cert/--grpc-key/--grpc-ca need]",
        "  POINTSMAN_PRIMARY_BACKEND [auto: vttablet RPCs where the primary's record has a gRPC port, else MySQL;",
        "  tablet, direct]  POINTSMAN_TABLET_WRITE_BARRIER [false; true adds the MySQL barrier behind vttablet's]",
        "Dev mode also reads DEV_TEMPORAL_PORT [7233], DEV_DATA_DIR [a new temporary folder; temporal.db is kept",
        "there], POINTSMAN_TEMPORAL_BIN [~/.cache/pointsman/temporal-cli-v1.5.1/temporal; without it the SDK's",
        "in-memory test server], and defaults MYSQL_USER/MYSQL_PASSWORD to the sandbox's.");
  }
}
