package io.pointsman.e2e.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker processes of one test world, named worker-A, worker-B, ... in the order they start,
 * each writing its output to a file of its own in a folder kept for a look after a failure. All are
 * stopped on close, and also when the JVM ends without closing (a surefire timeout): else they would
 * poll on forever.
 */
public final class WorkerProcesses implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkerProcesses.class);

  private final Path jar;
  private final Path logs;
  private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
  private final Thread killOnExit = new Thread(this::stopAll, "worker-processes-exit");

  /**
   * @param jar the packaged worker ({@link WorkerProcess#packagedJar()})
   * @param logs the folder the workers' output goes to; created with the first worker
   */
  public WorkerProcesses(Path jar, Path logs) {
    this.jar = jar;
    this.logs = logs;
    Runtime.getRuntime().addShutdownHook(killOnExit);
  }

  /**
   * What every worker of a test is started with: its Temporal server and task queue, no metrics
   * page and a short shutdown grace; the caller adds etcd, the topology roots and MySQL.
   */
  public static Map<String, String> env(String temporalAddress, String taskQueue) {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("POINTSMAN_TASK_QUEUE", taskQueue);
    env.put("METRICS_PORT", "0");
    env.put("WORKER_SHUTDOWN_GRACE", "5s");
    return env;
  }

  /** Adds the sandbox's MariaDB account to {@code env}: the primaries listen on loopback without TLS. */
  public static Map<String, String> withSandboxMysql(Map<String, String> env, String user, String password) {
    env.put("MYSQL_USER", user);
    env.put("MYSQL_PASSWORD", password);
    env.put("MYSQL_TLS_MODE", "DISABLED");
    env.put("MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL", "true");
    return env;
  }

  /** Starts another worker whose environment is exactly {@code env}. */
  public synchronized WorkerProcess start(Map<String, String> env) throws IOException {
    String name = "worker-" + (char) ('A' + workers.size());
    Files.createDirectories(logs);
    WorkerProcess w = WorkerProcess.start(name, jar, env, logs.resolve(name + ".log"));
    workers.add(w);
    return w;
  }

  /** The last lines of every worker's output, for a failure message. */
  public String tails() {
    StringBuilder b = new StringBuilder();
    for (WorkerProcess w : workers) {
      b.append("\n----- ").append(w.name()).append(" (pid ").append(w.pid()).append(w.isAlive() ? ", alive" : ", gone")
          .append(") -----\n").append(w.tail(40));
    }
    return b.toString();
  }

  /** Stops every worker; one that fails to stop does not keep the others running. */
  public void stopAll() {
    for (WorkerProcess w : workers) {
      try {
        w.close();
      } catch (Exception e) {
        log.warn("could not stop {}", w.name(), e);
      }
    }
  }

  /** Stops every worker and forgets the exit hook. */
  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs or ran already
    }
  }
}
