package io.pointsman.sandbox.streams;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer.CompatibilityMode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.MariadbGtidSet;
import io.pointsman.engine.mysql.WriteBarrier;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a source primary's binlog from a MariaDB GTID position on a thread of its own and hands
 * each committed transaction, reduced to the row changes in the source database, to its worker's
 * queue. The binlog client's callbacks only decode and enqueue: applying happens on the worker's
 * thread. The reader ends on the first failure and says so with {@link ReaderEvent.Ended}; the
 * worker decides whether to start a new reader, so reconnecting always resumes from what the
 * worker actually processed.
 */
final class BinlogReader implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BinlogReader.class);
  /**
   * The binlog client logs through java.util.logging at INFO on every connect, without saying for
   * which stream; this reader logs what matters itself. Held here so the setting is not collected.
   */
  private static final java.util.logging.Logger CLIENT_LOG = quietClientLog();
  private static final Duration OFFER_WAIT = Duration.ofMillis(100);
  private static final Duration JOIN_WAIT = Duration.ofSeconds(5);

  private final SourceEndpoint source;
  private final BlockingQueue<ReaderEvent> out;
  private final BinaryLogClient client;
  private final Thread thread;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Map<Long, TableMapEventData> tables = new HashMap<>();
  private volatile boolean closed;
  private volatile long lastEventNanos = System.nanoTime();
  private TxnBuilder current;

  /**
   * @param serverId the replica server id this client announces; MariaDB drops an older connection
   *     that announced the same id, so every reader needs its own
   */
  BinlogReader(SourceEndpoint source, String user, String password, MariadbGtidSet from, long serverId,
      Duration heartbeat, BlockingQueue<ReaderEvent> out, String name) {
    this.source = source;
    this.out = out;
    this.client = new BinaryLogClient(source.host(), source.port(), user, password);
    client.setServerId(serverId);
    client.setKeepAlive(false);
    client.setConnectTimeout(Duration.ofSeconds(5).toMillis());
    client.setHeartbeatInterval(heartbeat.toMillis());
    client.setGtidSet(from.toString());
    client.setThreadFactory(r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    });
    EventDeserializer deserializer = new EventDeserializer();
    // Raw values re-bind exactly: strings stay bytes, temporal values are microseconds, zero dates a marker.
    deserializer.setCompatibilityMode(CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY,
        CompatibilityMode.DATE_AND_TIME_AS_LONG_MICRO, CompatibilityMode.INVALID_DATE_AND_TIME_AS_MIN_VALUE);
    client.setEventDeserializer(deserializer);
    client.registerEventListener(this::onEvent);
    client.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
      @Override
      public void onConnect(BinaryLogClient c) {
        // A close that came while connecting found no connection to drop; drop it now.
        if (closed) {
          disconnectQuietly();
        }
      }

      @Override
      public void onCommunicationFailure(BinaryLogClient c, Exception e) {
        failure.compareAndSet(null, e);
      }

      @Override
      public void onEventDeserializationFailure(BinaryLogClient c, Exception e) {
        // The client would skip the event and go on; a skipped row is lost data, so stop instead.
        failure.compareAndSet(null, PointsmanException.invalidArgument("cannot decode a binlog event of " + source
            + ": " + e.getMessage()));
        disconnectQuietly();
      }
    });
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private static java.util.logging.Logger quietClientLog() {
    java.util.logging.Logger l = java.util.logging.Logger.getLogger(BinaryLogClient.class.getName());
    l.setLevel(java.util.logging.Level.WARNING);
    return l;
  }

  /** When the server last sent anything, heartbeats included ({@link System#nanoTime()}). */
  long lastEventNanos() {
    return lastEventNanos;
  }

  private void run() {
    try {
      client.connect();
    } catch (IOException | RuntimeException e) {
      failure.compareAndSet(null, e);
    }
    if (!closed) {
      Throwable cause = failure.get();
      enqueue(new ReaderEvent.Ended(cause != null ? cause
          : PointsmanException.unavailable("the binlog connection to " + source + " ended", null)));
    }
  }

  private void onEvent(Event event) {
    if (closed) {
      disconnectQuietly();
      return;
    }
    lastEventNanos = System.nanoTime();
    EventType type = event.getHeader().getEventType();
    EventData data = EventDeserializer.EventDataWrapper.internal(event.getData());
    if (type == EventType.MARIADB_GTID) {
      MariadbGtidEventData g = (MariadbGtidEventData) data;
      long serverId = event.getHeader().getServerId();
      current = new TxnBuilder(new MariadbGtidSet.Gtid(g.getDomainId(), serverId, g.getSequence()),
          event.getHeader().getTimestamp() / 1000, (g.getFlags() & MariadbGtidEventData.FL_STANDALONE) != 0);
    } else if (type == EventType.TABLE_MAP) {
      TableMapEventData t = (TableMapEventData) data;
      tables.put(t.getTableId(), t);
    } else if (EventType.isWrite(type)) {
      WriteRowsEventData w = (WriteRowsEventData) data;
      for (Serializable[] row : w.getRows()) {
        addRow(w.getTableId(), null, w.getIncludedColumns(), null, row);
      }
    } else if (EventType.isUpdate(type)) {
      UpdateRowsEventData u = (UpdateRowsEventData) data;
      for (Map.Entry<Serializable[], Serializable[]> row : u.getRows()) {
        addRow(u.getTableId(), u.getIncludedColumnsBeforeUpdate(), u.getIncludedColumns(), row.getKey(), row.getValue());
      }
    } else if (EventType.isDelete(type)) {
      DeleteRowsEventData d = (DeleteRowsEventData) data;
      for (Serializable[] row : d.getRows()) {
        addRow(d.getTableId(), d.getIncludedColumns(), null, row, null);
      }
    } else if (type == EventType.XID) {
      commit();
    } else if (type == EventType.QUERY) {
      onQuery((QueryEventData) data);
    }
  }

  private void onQuery(QueryEventData q) {
    String sql = q.getSql() == null ? "" : q.getSql().trim();
    String upper = sql.toUpperCase(Locale.ROOT);
    if (current == null || upper.equals("BEGIN")) {
      return;
    }
    if (upper.equals("COMMIT")) {
      commit();
      return;
    }
    // The write barrier's triggers replicate to the source's replicas, not to a stream's target.
    if (source.db().equals(q.getDatabase()) && !WriteBarrier.isBarrierDdl(sql)) {
      current.ddl.add(sql);
    }
    if (current.standalone) {
      commit();
    }
  }

  private void addRow(long tableId, BitSet includedBefore, BitSet includedAfter, Serializable[] before,
      Serializable[] after) {
    TableMapEventData t = tables.get(tableId);
    if (current == null || t == null || !source.db().equals(t.getDatabase())) {
      return;
    }
    int columns = t.getColumnTypes().length;
    if ((includedBefore != null && includedBefore.cardinality() != columns)
        || (includedAfter != null && includedAfter.cardinality() != columns)) {
      fail(PointsmanException.invalidArgument("binlog rows of " + t.getDatabase() + "." + t.getTable()
          + " do not carry every column; the source needs binlog_row_image=FULL"));
      return;
    }
    current.changes.add(new SourceTransaction.RowChange(t.getTable(), before, after));
  }

  private void commit() {
    if (current == null) {
      return;
    }
    TxnBuilder done = current;
    current = null;
    enqueue(new SourceTransaction(done.gtid, done.timestamp, done.changes, done.ddl));
  }

  private void fail(Throwable cause) {
    failure.compareAndSet(null, cause);
    current = null;
    disconnectQuietly();
  }

  /**
   * Waits for room in the queue, which is how a slow target slows the binlog down; the wait is
   * bounded in steps so a close is noticed.
   */
  private void enqueue(ReaderEvent event) {
    try {
      while (!closed) {
        if (out.offer(event, OFFER_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void disconnectQuietly() {
    try {
      client.disconnect();
    } catch (IOException e) {
      log.debug("disconnecting the binlog client of {} failed", source, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    disconnectQuietly();
    ThreadJoin.awaitEnd(thread, JOIN_WAIT, log, "binlog reader " + thread.getName());
  }

  /** The transaction being assembled; touched only by the binlog client's thread. */
  private static final class TxnBuilder {
    final MariadbGtidSet.Gtid gtid;
    final long timestamp;
    final boolean standalone;
    final List<SourceTransaction.RowChange> changes = new ArrayList<>();
    final List<String> ddl = new ArrayList<>();

    TxnBuilder(MariadbGtidSet.Gtid gtid, long timestamp, boolean standalone) {
      this.gtid = gtid;
      this.timestamp = timestamp;
      this.standalone = standalone;
    }
  }
}
