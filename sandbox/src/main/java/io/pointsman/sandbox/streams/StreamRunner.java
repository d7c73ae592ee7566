package io.pointsman.sandbox.streams;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's stand-in for Vitess's vreplication engine. It polls the {@code vreplication} table
 * of every primary it serves and keeps one worker per stream whose state is Init, Copying or
 * Running: a new or restarted row gets a worker, a row that was stopped, failed, deleted or
 * redefined loses its worker. Workers copy, then apply the source binlog, and report in the row
 * (Copying, Running, Stopped at {@code stop_pos}, Error with the reason). Close it to stop every
 * worker and release every connection.
 */
public final class StreamRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StreamRunner.class);
  private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(1);
  private static final Duration JOIN_WAIT = Duration.ofSeconds(15);
  /** ER_NO_SUCH_TABLE and ER_BAD_DB_ERROR: the primary has no sidecar yet, so no streams. */
  private static final Set<Integer> NO_SIDECAR = Set.of(1146, 1049);

  private final StreamRunnerOptions options;
  private final TopologyView topology;
  private final Thread poller;
  private final Map<WorkerKey, StreamWorker> workers = new HashMap<>();
  private final Map<TargetPrimary, Connection> pollConnections = new HashMap<>();
  private final Set<TargetPrimary> unreachable = new HashSet<>();
  private final AtomicLong serverIds = new AtomicLong(1_000_000_000L + ThreadLocalRandom.current().nextLong(1_000_000_000L));
  private volatile boolean closed;
  private List<TargetPrimary> cachedPrimaries = List.of();
  private long primariesReadNanos;

  private record WorkerKey(TargetPrimary primary, long id) {}

  private StreamRunner(StreamRunnerOptions options) {
    this.options = options;
    this.topology = new TopologyView(options.topology());
    this.poller = new Thread(this::pollLoop, "stream-runner");
    poller.setDaemon(true);
  }

  /** Starts polling at once; streams start within one poll interval. */
  public static StreamRunner start(StreamRunnerOptions options) {
    StreamRunner runner = new StreamRunner(options);
    log.info("stream runner starting: {}", options);
    runner.poller.start();
    return runner;
  }

  /** How many streams have a live worker right now. */
  public synchronized int activeStreams() {
    return (int) workers.values().stream().filter(StreamWorker::isAlive).count();
  }

  private void pollLoop() {
    while (!closed) {
      try {
        pollOnce();
      } catch (RuntimeException e) {
        log.warn("stream runner poll failed: {}", e.getMessage(), e);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(options.pollInterval().toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private synchronized void pollOnce() {
    if (closed) {
      return;
    }
    List<TargetPrimary> primaries = primaries();
    Set<WorkerKey> keep = new HashSet<>();
    for (TargetPrimary p : primaries) {
      List<StreamRow> rows;
      try {
        rows = readRows(p);
        if (unreachable.remove(p)) {
          log.info("stream runner reaches {} again", p);
        }
      } catch (SQLException e) {
        if (unreachable.add(p)) {
          log.warn("stream runner cannot read the streams of {}: {}", p, e.getMessage());
        }
        // Unknown is not stopped: the workers of an unreachable primary keep running and retrying.
        workers.keySet().stream().filter(k -> k.primary().equals(p)).forEach(keep::add);
        continue;
      }
      for (StreamRow row : rows) {
        WorkerKey key = new WorkerKey(p, row.id());
        if (reconcile(key, row)) {
          keep.add(key);
        }
      }
    }
    for (Iterator<Map.Entry<WorkerKey, StreamWorker>> it = workers.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<WorkerKey, StreamWorker> e = it.next();
      if (!keep.contains(e.getKey())) {
        log.info("stream {} on {} was deleted or is no longer served; stopping its worker", e.getKey().id(), e.getKey().primary());
        e.getValue().close();
        it.remove();
      }
    }
  }

  /** Brings the worker of one row in line with the row; true when the row keeps (or gets) a worker. */
  private boolean reconcile(WorkerKey key, StreamRow row) {
    StreamWorker w = workers.get(key);
    if (w != null && (!w.isAlive() || !row.runnable() || !w.definition().sameDefinition(row))) {
      w.close();
      workers.remove(key);
      w = null;
    }
    if (!row.runnable()) {
      return false;
    }
    if (w == null) {
      log.info("stream {} on {} ({}) is {}; starting a worker", row.id(), key.primary(), row.workflow(), row.state());
      w = new StreamWorker(options, topology, key.primary(), row, serverIds::getAndIncrement);
      workers.put(key, w);
      w.start();
    }
    return true;
  }

  private List<StreamRow> readRows(TargetPrimary p) throws SQLException {
    Connection c = pollConnections.get(p);
    try {
      if (c == null) {
        c = Sql.connect(p.host(), p.port(), options.mysqlUser(), options.mysqlPassword());
        pollConnections.put(p, c);
      }
      return new StreamTable(p.sidecarDb()).readAll(c);
    } catch (SQLException e) {
      if (NO_SIDECAR.contains(e.getErrorCode())) {
        return List.of();
      }
      pollConnections.remove(p);
      Sql.closeQuietly(c, e);
      throw e;
    }
  }

  private List<TargetPrimary> primaries() {
    if (!options.primaries().isEmpty()) {
      return options.primaries();
    }
    if (primariesReadNanos == 0 || System.nanoTime() - primariesReadNanos >= TOPOLOGY_REFRESH.toNanos()) {
      try {
        cachedPrimaries = topology.allPrimaries();
        primariesReadNanos = System.nanoTime();
      } catch (RuntimeException e) {
        if (closed) {
          return cachedPrimaries;
        }
        // Keep serving the primaries known so far; a topology outage must not stop streams.
        log.warn("stream runner cannot list the primaries in the topology: {}", e.getMessage());
      }
    }
    return cachedPrimaries;
  }

  /** Stops every worker (bounded wait each) and closes every connection. Idempotent. */
  @Override
  public void close() {
    closed = true;
    poller.interrupt();
    try {
      poller.join(JOIN_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<StreamWorker> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(workers.values());
      workers.clear();
      pollConnections.values().forEach(c -> Sql.closeQuietly(c, null));
      pollConnections.clear();
    }
    toClose.forEach(StreamWorker::close);
  }
}
