package io.pointsman.sandbox.streams;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.api.gtid.Position;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apply phase of a stream: source transactions from a {@link BinlogReader} in, guarded target
 * transactions out, each with the position after what it applied, the last commit time and
 * {@code time_updated} in that same transaction. Source transactions already waiting in the queue
 * are applied together in one target transaction (up to {@value #MAX_BATCH}), as VReplication's
 * player does: one commit per source transaction cannot keep up with a busy source, since each
 * waits for its own flush and binlog write on the target. Transactions that
 * carry nothing only move the position in memory; it is saved once the source has been quiet for
 * 10 ms (a switch waits for exactly that: the source's last transaction, after its writes
 * stopped, is usually one that carries nothing for the stream), and by the heartbeats.
 * Stops at {@code stop_pos}, and on DDL when {@code on_ddl} is STOP.
 */
final class BinlogApplier implements AutoCloseable {
  static final String STOP_POS_MESSAGE = "Reached stopping position, done playing logs";

  private static final Logger log = LoggerFactory.getLogger(BinlogApplier.class);
  private static final Set<StreamState> RUNNING = Set.of(StreamState.RUNNING);
  private static final int QUEUE_CAPACITY = 256;
  /** The most source transactions one target transaction applies. */
  static final int MAX_BATCH = 128;
  /** Heartbeats missed before a silent binlog connection counts as dead. */
  private static final int SILENT_HEARTBEATS = 5;
  /**
   * How long the source must be quiet before a position moved by transactions that carried nothing
   * is saved. A switch's catch-up waits for exactly such a position (the barrier's flip is the last
   * transaction before it, and carries nothing for the stream), and real VReplication saves it at
   * once when it is the stream's stop position, which the sandbox does not need to be set; so the
   * quiet is short, only long enough that a burst of other tables' writes is saved once, not each.
   */
  private static final Duration QUIET_BEFORE_SAVE = Duration.ofMillis(2);

  /** How the apply loop paces itself and names its reader. */
  record Settings(String label, Duration pollInterval, Duration heartbeatInterval, long serverId, String readerName) {}

  private final Settings settings;
  private final WorkerSetup setup;
  private final Connection target;
  private final StreamGuard guard;
  private final BinlogSource.OnDdl onDdl;
  private final Position stopPos;
  private final Backoff backoff;
  private final BlockingQueue<ReaderEvent> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private volatile BinlogReader reader;
  /** Position after the last source transaction looked at; ahead of the row's pos when those carried nothing. */
  private MariadbGtidSet processed;
  /** Whether {@link #processed} is ahead of the position saved in the row. */
  private boolean unsaved;
  private long lastWriteNanos = System.nanoTime();

  /**
   * @param stopPos the stream's {@code stop_pos}, or null
   * @param backoff the worker's retry backoff, reset whenever a transaction applies
   */
  BinlogApplier(Settings settings, WorkerSetup setup, Connection target, StreamGuard guard, BinlogSource.OnDdl onDdl,
      Position stopPos, Backoff backoff) {
    this.settings = settings;
    this.setup = setup;
    this.target = target;
    this.guard = guard;
    this.onDdl = onDdl;
    this.stopPos = stopPos;
    this.backoff = backoff;
  }

  /**
   * Applies from {@code from} until the stream stops (returns), the worker closes ({@code closed}
   * turns true; returns), or reading or applying fails (throws; the worker retries or records it).
   */
  void run(MariadbGtidSet from, BooleanSupplier closed) throws SQLException, InterruptedException {
    processed = from;
    if (stopReached()) {
      stop(STOP_POS_MESSAGE);
      return;
    }
    Duration heartbeat = settings.heartbeatInterval();
    reader = new BinlogReader(setup.source(), setup.user(), setup.password(), from, settings.serverId(),
        heartbeat, queue, settings.readerName());
    log.info("stream {}: replicating {} from {}{}", settings.label(), setup.source(), from,
        stopPos == null ? "" : " until " + stopPos);
    reader.start();
    long wait = Math.min(settings.pollInterval().toMillis(), heartbeat.toMillis());
    while (!closed.getAsBoolean()) {
      ReaderEvent event = queue.poll(unsaved ? Math.min(wait, QUIET_BEFORE_SAVE.toMillis()) : wait,
          TimeUnit.MILLISECONDS);
      if (event instanceof ReaderEvent.Ended ended) {
        throw failure(ended.cause());
      }
      if (event instanceof SourceTransaction txn && handle(batchFrom(txn))) {
        return;
      }
      if (System.nanoTime() - lastWriteNanos >= heartbeat.toNanos() || (event == null && unsaved)) {
        heartbeat();
      }
      if (System.nanoTime() - reader.lastEventNanos() > heartbeat.multipliedBy(SILENT_HEARTBEATS).toNanos()) {
        throw PointsmanException.unavailable("the binlog of " + setup.source() + " went silent", null);
      }
    }
  }

  /** The transaction taken from the queue and those queued right behind it, up to {@link #MAX_BATCH}. */
  private List<SourceTransaction> batchFrom(SourceTransaction first) {
    List<SourceTransaction> batch = new ArrayList<>();
    batch.add(first);
    while (batch.size() < MAX_BATCH && queue.peek() instanceof SourceTransaction) {
      batch.add((SourceTransaction) queue.poll());
    }
    return batch;
  }

  /**
   * Applies source transactions in order, those with writes for this stream in one target
   * transaction; stops at {@code stop_pos} (what follows it in the batch is not applied) and at
   * DDL when {@code on_ddl} says so, after applying what came before. True when the stream stopped.
   */
  private boolean handle(List<SourceTransaction> batch) throws SQLException {
    List<ChangePlanner.Write> writes = new ArrayList<>();
    MariadbGtidSet next = processed;
    long lastCommit = 0;
    for (SourceTransaction txn : batch) {
      if (MariaDbPositions.includes(next, txn.gtid())) {
        continue;
      }
      if (!txn.ddl().isEmpty() && onDdl != BinlogSource.OnDdl.IGNORE) {
        if (advanceTo(next, writes, lastCommit)) {
          return true;
        }
        return onDdl(txn, MariaDbPositions.advance(processed, txn.gtid()));
      }
      next = MariaDbPositions.advance(next, txn.gtid());
      List<ChangePlanner.Write> own = ChangePlanner.plan(target, setup, txn.changes());
      if (!own.isEmpty()) {
        writes.addAll(own);
        lastCommit = txn.timestampSeconds();
      }
      if (stopPos != null && MariaDbPositions.reached(next, stopPos)) {
        break;
      }
    }
    if (advanceTo(next, writes, lastCommit)) {
      return true;
    }
    if (stopReached()) {
      stop(STOP_POS_MESSAGE);
      return true;
    }
    return false;
  }

  /**
   * Applies the writes and records {@code next} with them in one target transaction; with no
   * writes, only remembers {@code next} in memory (saved with the next heartbeat, since writing it
   * now would add a transaction to a binlog other streams may be reading). True when the stream
   * reached its stop position in that transaction and is now stopped.
   */
  private boolean advanceTo(MariadbGtidSet next, List<ChangePlanner.Write> writes, long lastCommit)
      throws SQLException {
    if (writes.isEmpty()) {
      if (!next.equals(processed)) {
        processed = next;
        unsaved = true;
      }
      return false;
    }
    String nextPos = MariaDbPositions.encode(next);
    boolean stopped = guard.inTransaction(target, RUNNING, nextPos, row -> {
      for (ChangePlanner.Write w : writes) {
        w.execute(target);
      }
      long now = now();
      setup.table().recordApplied(target, row.id(), nextPos, lastCommit, now);
      if (stopPos != null && MariaDbPositions.reached(next, stopPos)) {
        setup.table().setState(target, row.id(), StreamState.STOPPED, STOP_POS_MESSAGE, now);
        return true;
      }
      return false;
    });
    writes.clear();
    processed = next;
    unsaved = false;
    lastWriteNanos = System.nanoTime();
    backoff.reset();
    if (stopped) {
      log.info("stream {} stopped at {}: {}", settings.label(), processed, STOP_POS_MESSAGE);
    }
    return stopped;
  }

  private boolean onDdl(SourceTransaction txn, MariadbGtidSet next) throws SQLException {
    if (onDdl == BinlogSource.OnDdl.STOP) {
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
    String pos = MariaDbPositions.encode(processed);
    guard.inTransaction(target, RUNNING, pos, row -> {
      long now = now();
      setup.table().recordHeartbeat(target, row.id(), pos, now);
      setup.table().setState(target, row.id(), StreamState.STOPPED, message, now);
      return null;
    });
    log.info("stream {} stopped at {}: {}", settings.label(), processed, message);
  }

  private void heartbeat() throws SQLException {
    String pos = MariaDbPositions.encode(processed);
    guard.inTransaction(target, RUNNING, pos, row -> {
      setup.table().recordHeartbeat(target, row.id(), pos, now());
      return null;
    });
    unsaved = false;
    lastWriteNanos = System.nanoTime();
  }

  private RuntimeException failure(Throwable cause) {
    if (cause instanceof PointsmanException p) {
      return p;
    }
    String message = "reading the binlog of " + setup.source() + " failed: " + cause.getMessage();
    return StreamErrors.isTransient(cause) ? PointsmanException.unavailable(message, cause)
        : new PointsmanException(ErrorCode.INVALID_ARGUMENT, message, cause);
  }

  private static long now() {
    return System.currentTimeMillis() / 1000;
  }

  /** Disconnects the binlog reader; safe from any thread. */
  @Override
  public void close() {
    BinlogReader r = reader;
    if (r != null) {
      r.close();
    }
  }
}
