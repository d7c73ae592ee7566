package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@code vreplication} row on its own thread: copy if the stream has no position yet (or
 * a copy was interrupted), then apply the source binlog from the stream's position, one target
 * transaction per source transaction, until the row is stopped, reaches {@code stop_pos}, fails
 * for good (state Error with the reason) or the worker is closed. Transient failures (connections,
 * lock waits) are retried with backoff from the last committed position.
 */
final class StreamWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StreamWorker.class);
  private static final Set<StreamState> RUNNABLE = Set.of(StreamState.INIT, StreamState.COPYING, StreamState.RUNNING);
  private static final Duration JOIN_WAIT = Duration.ofSeconds(10);

  private final StreamRunnerOptions options;
  private final TopologyView topology;
  private final TargetPrimary primary;
  private final StreamRow definition;
  private final StreamTable table;
  private final LongSupplier serverIds;
  private final String label;
  private final Thread thread;
  private volatile boolean closed;
  private volatile BinlogApplier applier;

  StreamWorker(StreamRunnerOptions options, TopologyView topology, TargetPrimary primary, StreamRow definition,
      LongSupplier serverIds) {
    this.options = options;
    this.topology = topology;
    this.primary = primary;
    this.definition = definition;
    this.table = new StreamTable(primary.sidecarDb());
    this.serverIds = serverIds;
    this.label = primary + "#" + definition.id() + "(" + definition.workflow() + ")";
    this.thread = new Thread(this::run, "stream-" + primary + "#" + definition.id());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The row as it was when this worker started; a change of its definition needs a new worker. */
  StreamRow definition() {
    return definition;
  }

  boolean isAlive() {
    return thread.isAlive();
  }

  private void run() {
    Backoff backoff = new Backoff(options.retryInitialBackoff(), options.retryMaxBackoff());
    while (!closed) {
      try {
        runOnce(backoff);
        return;
      } catch (StreamGuard.Halted h) {
        log.info("stream {}: {}", label, h.getMessage());
        return;
      } catch (InterruptedException e) {
        // Only close() interrupts a worker.
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        if (closed) {
          return;
        }
        Duration delay = backoff.next();
        if (StreamErrors.isTransient(e)) {
          log.warn("stream {}: {}; retrying in {} ms", label, StreamErrors.describe(e), delay.toMillis());
          log.debug("stream {}: transient failure", label, e);
        } else if (recordError(e)) {
          return;
        }
        if (!pause(delay)) {
          return;
        }
      }
    }
  }

  private void runOnce(Backoff backoff) throws SQLException, InterruptedException {
    // The apply session writes where a write barrier may deny everyone else (a reverse stream
    // applies to the original source while its tables are denied during a switch).
    try (Connection target = Sql.connectForApply(primary.host(), primary.port(), options.mysqlUser(),
        options.mysqlPassword(), streamName())) {
      StreamGuard guard = new StreamGuard(table, definition);
      StreamRow row = guard.begin(target, RUNNABLE);
      int copyRows = table.copyStateRows(target, row.id());
      target.commit();

      BinlogSource source = SourceCodec.decode(primary.sidecarDb() + ".vreplication id " + row.id(), row.source());
      StreamFilter filter = new StreamFilter(source, topology::vschema);
      if (row.dbName() == null || row.dbName().isEmpty()) {
        throw PointsmanException.invalidArgument("the stream has no db_name to write into");
      }
      WorkerSetup setup = new WorkerSetup(table, label, topology.source(source.keyspace(), source.shard()), filter,
          row.dbName(), options.mysqlUser(), options.mysqlPassword(), options.copyBatchSize());
      SourceEndpoint src = setup.source();
      try (Connection c = Sql.connect(src.host(), src.port(), options.mysqlUser(), options.mysqlPassword())) {
        Sql.checkSourceBinlog(c, src.toString());
      }

      MariadbGtidSet pos;
      if (copyRows > 0 || row.pos().isBlank() || row.parsedState().orElse(null) == StreamState.INIT) {
        pos = new RowCopier(setup, target, guard, () -> closed).copy();
      } else {
        pos = MariaDbPositions.parse(row.pos());
      }
      Position stopPos = row.stopPos().isBlank() ? null : Position.parse(row.stopPos());
      BinlogApplier.Settings settings = new BinlogApplier.Settings(label, options.pollInterval(),
          options.heartbeatInterval(), serverIds.getAsLong(), "binlog-" + thread.getName());
      try (BinlogApplier a = new BinlogApplier(settings, setup, target, guard, source.onDdl(), stopPos, backoff)) {
        applier = a;
        if (!closed) {
          a.run(pos, () -> closed);
        }
      } finally {
        applier = null;
      }
    }
  }

  /** Puts the stream in state Error; false when that could not be recorded (then the worker retries). */
  private boolean recordError(Exception failure) {
    String message = StreamErrors.describe(failure);
    log.error("stream {} failed: {}", label, message, failure);
    try (Connection c = Sql.connectForApply(primary.host(), primary.port(), options.mysqlUser(),
        options.mysqlPassword(), streamName())) {
      // Only a stream that may still run gets the error; a stop that came meanwhile stands.
      new StreamGuard(table, definition).ifRunnable(c, RUNNABLE, r -> {
        table.setState(c, r.id(), StreamState.ERROR, message, now());
        return null;
      });
      return true;
    } catch (StreamGuard.Halted h) {
      return true;
    } catch (SQLException | RuntimeException e) {
      log.warn("stream {}: cannot record its error: {}", label, e.getMessage());
      return false;
    }
  }

  /** Sleeps unless closed meanwhile; false when the worker should end. */
  private boolean pause(Duration d) {
    try {
      long deadline = System.nanoTime() + d.toNanos();
      while (!closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        TimeUnit.NANOSECONDS.sleep(Math.min(left, options.pollInterval().toNanos()));
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String streamName() {
    return definition.workflow() == null || definition.workflow().isEmpty() ? "stream-" + definition.id()
        : definition.workflow();
  }

  private static long now() {
    return System.currentTimeMillis() / 1000;
  }

  /**
   * Stops the worker: it applies nothing more once this returns, unless a transaction was already
   * committing (the row guard makes a stop through the row itself exact). Waits a bounded time.
   */
  @Override
  public void close() {
    closed = true;
    BinlogApplier a = applier;
    if (a != null) {
      a.close();
    }
    thread.interrupt();
    ThreadJoin.awaitEnd(thread, JOIN_WAIT, log, "stream " + label);
  }
}
