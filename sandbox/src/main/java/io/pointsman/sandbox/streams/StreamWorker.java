package io.pointsman.sandbox.streams;

import io.pointsman.errors.ErrorCode;
import io.pointsman.errors.PointsmanException;
import io.pointsman.gtid.MariadbGtidSet;
import io.pointsman.gtid.Position;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
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
  static final String STOP_POS_MESSAGE = "Reached stopping position, done playing logs";

  private static final Logger log = LoggerFactory.getLogger(StreamWorker.class);
  private static final Set<StreamState> RUNNING = Set.of(StreamState.Running);
  private static final Set<StreamState> RUNNABLE = Set.of(StreamState.Init, StreamState.Copying, StreamState.Running);
  private static final Duration JOIN_WAIT = Duration.ofSeconds(10);
  private static final int QUEUE_CAPACITY = 256;
  /** Heartbeats missed before a silent binlog connection counts as dead. */
  private static final int SILENT_HEARTBEATS = 5;

  private final StreamRunnerOptions options;
  private final TopologyView topology;
  private final TargetPrimary primary;
  private final StreamRow definition;
  private final StreamTable table;
  private final LongSupplier serverIds;
  private final String label;
  private final Thread thread;
  private volatile boolean closed;
  private volatile BinlogReader reader;

  StreamWorker(StreamRunnerOptions options, TopologyView topology, TargetPrimary primary, StreamRow definition,
      LongSupplier serverIds) {
    this.options = options;
    this.topology = topology;
    this.primary = primary;
    this.definition = definition;
    this.table = new StreamTable(primary.sidecarDb());
    this.serverIds = serverIds;
    this.label = primary + "#" + definition.id() + "(" + definition.workflow() + ")";
    this.thread = new Thread(this::run, "stream-" + primary.host() + ":" + primary.port() + "-" + definition.id());
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
      } catch (Exception e) {
        if (closed) {
          return;
        }
        if (StreamErrors.isTransient(e)) {
          log.warn("stream {}: {}; retrying", label, StreamErrors.describe(e), e);
        } else if (recordError(e)) {
          return;
        }
        if (!pause(backoff.next())) {
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
      StreamRow row = guard.inTransaction(target, RUNNABLE, r -> r);
      int copyRows = table.copyStateRows(target, row.id());
      target.commit();

      BinlogSource source = BinlogSource.parse(row.source());
      StreamFilter filter = new StreamFilter(source, topology::vschema);
      if (row.dbName() == null || row.dbName().isEmpty()) {
        throw PointsmanException.invalidArgument("the stream has no db_name to write into");
      }
      WorkerSetup setup = new WorkerSetup(table, label, topology.source(source.keyspace(), source.shard()), filter,
          row.dbName(), options.mysqlUser(), options.mysqlPassword(), options.copyBatchSize());

      MariadbGtidSet pos;
      if (copyRows > 0 || row.pos().isBlank() || row.parsedState().orElse(null) == StreamState.Init) {
        pos = new RowCopier(setup, target, guard, () -> closed).copy();
      } else {
        pos = MariaDbPositions.parse(row.pos());
      }
      Position stopPos = row.stopPos().isBlank() ? null : Position.parse(row.stopPos());
      new Replication(setup, target, guard, source.onDdl(), stopPos, backoff).run(pos);
    }
  }

  /** Puts the stream in state Error; false when that could not be recorded (then the worker retries). */
  private boolean recordError(Exception failure) {
    String message = StreamErrors.describe(failure);
    log.error("stream {} failed: {}", label, message, failure);
    try (Connection c = Sql.connectForApply(primary.host(), primary.port(), options.mysqlUser(),
        options.mysqlPassword(), streamName())) {
      // Only a stream that may still run gets the error; a stop that came meanwhile stands.
      new StreamGuard(table, definition).inTransaction(c, RUNNABLE, r -> {
        table.setState(c, r.id(), StreamState.Error, message, now());
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
    BinlogReader r = reader;
    if (r != null) {
      r.close();
    }
    thread.interrupt();
    if (Thread.currentThread() != thread) {
      try {
        thread.join(JOIN_WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        log.warn("stream {} did not stop within {}", label, JOIN_WAIT);
      }
    }
  }

  /** The apply phase of one run: binlog in, guarded target transactions out. */
  private final class Replication {
    private final WorkerSetup setup;
    private final Connection target;
    private final StreamGuard guard;
    private final String onDdl;
    private final Position stopPos;
    private final Backoff backoff;
    private final BlockingQueue<ReaderEvent> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    /** Position after the last source transaction looked at; ahead of the row's pos when those carried nothing. */
    private MariadbGtidSet processed;
    private long lastWriteNanos = System.nanoTime();

    Replication(WorkerSetup setup, Connection target, StreamGuard guard, String onDdl, Position stopPos,
        Backoff backoff) {
      this.setup = setup;
      this.target = target;
      this.guard = guard;
      this.onDdl = onDdl.toUpperCase(Locale.ROOT);
      this.stopPos = stopPos;
      this.backoff = backoff;
    }

    void run(MariadbGtidSet from) throws SQLException, InterruptedException {
      processed = from;
      if (stopReached()) {
        stop(STOP_POS_MESSAGE);
        return;
      }
      Duration heartbeat = options.heartbeatInterval();
      reader = new BinlogReader(setup.source(), setup.user(), setup.password(), from, serverIds.getAsLong(),
          heartbeat, queue, "binlog-" + thread.getName());
      log.info("stream {}: replicating {} from {}{}", label, setup.source(), from,
          stopPos == null ? "" : " until " + stopPos);
      try {
        reader.start();
        while (!closed) {
          ReaderEvent event = queue.poll(Math.min(options.pollInterval().toMillis(), heartbeat.toMillis()),
              TimeUnit.MILLISECONDS);
          if (event instanceof ReaderEvent.Ended ended) {
            throw failure(ended.cause());
          }
          if (event instanceof SourceTransaction txn && handle(txn)) {
            return;
          }
          if (System.nanoTime() - lastWriteNanos >= heartbeat.toNanos()) {
            heartbeat();
          }
          if (System.nanoTime() - reader.lastEventNanos() > heartbeat.multipliedBy(SILENT_HEARTBEATS).toNanos()) {
            throw PointsmanException.unavailable("the binlog of " + setup.source() + " went silent", null);
          }
        }
      } finally {
        reader.close();
      }
    }

    /** Handles one source transaction; true when the stream stopped. */
    private boolean handle(SourceTransaction txn) throws SQLException {
      if (MariaDbPositions.includes(processed, txn.gtid())) {
        return false;
      }
      MariadbGtidSet next = MariaDbPositions.advance(processed, txn.gtid());
      if (!txn.ddl().isEmpty() && !onDdl.equals("IGNORE") && !onDdl.equals("0")) {
        return onDdl(txn, next);
      }
      List<ChangePlanner.Write> writes = ChangePlanner.plan(target, setup, txn.changes());
      if (writes.isEmpty()) {
        // Nothing for this stream: remember the position and save it with the next heartbeat, since
        // writing it now would add a transaction to a binlog other streams may be reading.
        processed = next;
        if (stopReached()) {
          stop(STOP_POS_MESSAGE);
          return true;
        }
        return false;
      }
      boolean stopped = guard.inTransaction(target, RUNNING, row -> {
        for (ChangePlanner.Write w : writes) {
          w.execute(target);
        }
        long now = now();
        table.recordApplied(target, row.id(), MariaDbPositions.encode(next), txn.timestampSeconds(), now);
        if (stopPos != null && MariaDbPositions.reached(next, stopPos)) {
          table.setState(target, row.id(), StreamState.Stopped, STOP_POS_MESSAGE, now);
          return true;
        }
        return false;
      });
      processed = next;
      lastWriteNanos = System.nanoTime();
      backoff.reset();
      if (stopped) {
        log.info("stream {} stopped at {}: {}", label, processed, STOP_POS_MESSAGE);
      }
      return stopped;
    }

    private boolean onDdl(SourceTransaction txn, MariadbGtidSet next) throws SQLException {
      if (onDdl.equals("STOP") || onDdl.equals("1")) {
        processed = next;
        stop("Stopped at DDL " + String.join("; ", txn.ddl()));
        return true;
      }
      throw PointsmanException.invalidArgument("on_ddl " + onDdl + " is not supported by the sandbox stream runner;"
          + " DDL seen: " + String.join("; ", txn.ddl()));
    }

    private boolean stopReached() {
      return stopPos != null && MariaDbPositions.reached(processed, stopPos);
    }

    /** Saves the position reached and sets the stream Stopped with the reason. */
    private void stop(String message) throws SQLException {
      guard.inTransaction(target, RUNNING, row -> {
        long now = now();
        table.recordHeartbeat(target, row.id(), MariaDbPositions.encode(processed), now);
        table.setState(target, row.id(), StreamState.Stopped, message, now);
        return null;
      });
      log.info("stream {} stopped at {}: {}", label, processed, message);
    }

    private void heartbeat() throws SQLException {
      guard.inTransaction(target, RUNNING, row -> {
        table.recordHeartbeat(target, row.id(), MariaDbPositions.encode(processed), now());
        return null;
      });
      lastWriteNanos = System.nanoTime();
    }

    private RuntimeException failure(Throwable cause) {
      if (cause instanceof PointsmanException p) {
        return p;
      }
      return StreamErrors.isTransient(cause)
          ? PointsmanException.unavailable("reading the binlog of " + setup.source() + " failed: " + cause.getMessage(), cause)
          : new PointsmanException(ErrorCode.INVALID_ARGUMENT,
              "reading the binlog of " + setup.source() + " failed: " + cause.getMessage(), cause);
    }
  }
}
