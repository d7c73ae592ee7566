package io.pointsman.e2e.vitess;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A constant write load through a real vtgate, as an application sees it: {@code writesPerSecond}
 * single-row inserts into {@code customer} with no database selected, so that vtgate's routing rules
 * (not the client) decide which keyspace takes them. Each write has its own {@code customer_id},
 * increasing from {@code firstId}, and the email {@link #email(long)}. It is recorded once: as
 * acknowledged when its autocommit insert returned OK, as failed with the driver's message
 * otherwise, or, if it had no answer when {@link #stop()} gave up waiting, as failed with "no answer".
 * A failed write is never tried again: the next write takes the next id, so the ledger can tell a
 * lost acknowledged write from one that was refused.
 *
 * <p>A pacer thread hands each write at its scheduled time to a pool of writers, each with a
 * connection of its own, so that a write vtgate holds in its buffer during a switch delays only its
 * writer. When every writer is held, the next writes wait for one; a write's latency runs from its
 * scheduled time, so that wait counts, as it would for a client with that many connections. A writer
 * whose write failed opens a new connection for the next one (the failed one may be broken).
 */
public final class VtgateLoad implements AutoCloseable {
  /**
   * vtgate 24's own failure at a Reshard's cut-over: the first write of each connection after it
   * fails so, whether vtctldclient or pointsman switched (docs/real-vitess.md); every other failure
   * is the switch's.
   */
  public static final String VTGATE_RESHARD_BUG = "VT13001: [BUG] unexpected 'autocommitted' state in transaction";

  private static final Logger log = LoggerFactory.getLogger(VtgateLoad.class);
  /** How long {@link #stop()} waits for writes in flight; longer than vtgate's 20 s buffering limit. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(45);

  /**
   * A write vtgate did not acknowledge: its id, when it was due to be sent, how long until it
   * failed (or until the load gave up on it), and why.
   */
  public record FailedWrite(long id, Instant dueAt, Duration took, String message) {}

  /**
   * What the load saw: the acknowledged ids in increasing order, the failed writes, the slowest
   * write (acknowledged or not, from its scheduled time) and how many writes were sent.
   */
  public record LoadReport(List<Long> acked, List<FailedWrite> failed, Duration maxLatency, long count) {
    public LoadReport {
      acked = List.copyOf(acked);
      failed = List.copyOf(failed);
    }

    public String summary() {
      return count + " writes sent, " + acked.size() + " acknowledged, " + failed.size() + " failed, slowest "
          + maxLatency.toMillis() + " ms" + (failed.isEmpty() ? "" : "; first failure: " + failed.get(0));
    }
  }

  private final VitessCluster cluster;
  private final Duration period;
  private final AtomicLong nextId;
  private final ExecutorService writers;
  private final ThreadLocal<Connection> connections = new ThreadLocal<>();
  private final List<Connection> opened = new ArrayList<>();
  /** Writes sent and not yet recorded, id to their due time (nanoTime); removing one is recording it. */
  private final ConcurrentHashMap<Long, Long> inFlight = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<FailedWrite> failed = new ConcurrentLinkedQueue<>();
  /** id to how long its write took, acknowledged or failed: the slowest write of one action's window. */
  private final ConcurrentHashMap<Long, Long> latencyNanos = new ConcurrentHashMap<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong maxLatencyNanos = new AtomicLong();
  private final long startNanos = System.nanoTime();
  private final Instant startInstant = Instant.now();
  private final Thread pacer;
  private volatile boolean stopping;
  private LoadReport finalReport;

  /**
   * Starts the load at once.
   *
   * @param writesPerSecond how many writes are sent each second (e.g. 50)
   * @param writers how many writes may be in flight at once
   * @param firstId the first {@code customer_id}, well above the ids the test seeded
   */
  public VtgateLoad(VitessCluster cluster, int writesPerSecond, int writers, long firstId) {
    if (writesPerSecond < 1 || writesPerSecond > 1000) {
      throw new IllegalArgumentException("writesPerSecond must be 1..1000, not " + writesPerSecond);
    }
    if (writers < 1) {
      throw new IllegalArgumentException("writers must be at least 1, not " + writers);
    }
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.period = Duration.ofNanos(1_000_000_000L / writesPerSecond);
    this.nextId = new AtomicLong(firstId);
    this.writers = Executors.newFixedThreadPool(writers, r -> {
      Thread t = new Thread(r, "vtgate-load-writer");
      t.setDaemon(true);
      return t;
    });
    this.pacer = new Thread(this::pace, "vtgate-load-pacer");
    pacer.setDaemon(true);
    pacer.start();
  }

  /** The email of the write with this id: the ledger reads it back. */
  public static String email(long id) {
    return "load-" + id + "@example.com";
  }

  /** Sends one write per period, on a fixed schedule from the start (a late tick does not shift the rest). */
  private void pace() {
    for (long tick = 0; !stopping; tick++) {
      long due = startNanos + tick * period.toNanos();
      long wait;
      while (!stopping && (wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      if (stopping) {
        return;
      }
      long id = nextId.getAndIncrement();
      inFlight.put(id, due);
      sent.incrementAndGet();
      writers.execute(() -> write(id, due));
    }
  }

  private void write(long id, long due) {
    try {
      Connection c = connection();
      try (PreparedStatement st = c.prepareStatement("insert into customer(customer_id, email) values (?, ?)")) {
        st.setLong(1, id);
        st.setString(2, email(id));
        st.executeUpdate();
      }
      if (inFlight.remove(id) != null) {
        recordLatency(id, due);
        acked.add(id);
      } else {
        log.warn("write {} acknowledged after the load had given up on it (recorded as failed)", id);
      }
    } catch (SQLException | RuntimeException e) {
      if (inFlight.remove(id) != null) {
        fail(id, due, String.valueOf(e.getMessage()));
      }
      dropConnection();
    }
  }

  private void fail(long id, long due, String message) {
    Duration took = recordLatency(id, due);
    failed.add(new FailedWrite(id, dueAt(due), took, message));
    log.warn("write {} failed after {} ms: {}", id, took.toMillis(), message);
  }

  private Instant dueAt(long dueNanos) {
    return startInstant.plusNanos(dueNanos - startNanos);
  }

  private Duration recordLatency(long id, long due) {
    long took = System.nanoTime() - due;
    latencyNanos.put(id, took);
    maxLatencyNanos.accumulateAndGet(took, Math::max);
    return Duration.ofNanos(took);
  }

  private Connection connection() throws SQLException {
    Connection c = connections.get();
    if (c == null) {
      // no database: the table name alone, resolved by vtgate's routing rules, as an application would
      c = cluster.vtgate("");
      c.setAutoCommit(true);
      connections.set(c);
      synchronized (opened) {
        opened.add(c);
      }
    }
    return c;
  }

  private void dropConnection() {
    Connection c = connections.get();
    connections.remove();
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // it failed already; a new one is opened for the next write
      }
    }
  }

  /** The id the next write will take: writes from here on are sent after this call. */
  public long nextId() {
    return nextId.get();
  }

  /** How many writes with an id of {@code fromId} or more were acknowledged so far. */
  public long ackedFrom(long fromId) {
    return acked.stream().filter(id -> id >= fromId).count();
  }

  /** How many writes were sent and have neither been acknowledged nor failed yet. */
  public int inFlight() {
    return inFlight.size();
  }

  /** The slowest recorded write with an id in {@code [fromId, toId)}; zero if none was recorded. */
  public Duration maxLatency(long fromId, long toId) {
    long max = 0;
    for (long id = fromId; id < toId; id++) {
      max = Math.max(max, latencyNanos.getOrDefault(id, 0L));
    }
    return Duration.ofNanos(max);
  }

  /** What the load saw so far; the writes in flight are in neither list yet. */
  public LoadReport snapshot() {
    List<Long> ids = new ArrayList<>(acked);
    ids.sort(null);
    return new LoadReport(ids, new ArrayList<>(failed), Duration.ofNanos(maxLatencyNanos.get()), sent.get());
  }

  /**
   * Stops sending, waits up to {@link #STOP_WAIT} for the writes in flight to end, records those
   * still without an answer as failed ("no answer"), and returns what the load saw. Every write sent
   * is then in exactly one of the report's lists. A second call returns the same report.
   */
  public synchronized LoadReport stop() {
    if (finalReport != null) {
      return finalReport;
    }
    stopping = true;
    LockSupport.unpark(pacer);
    boolean abandoned = false;
    try {
      pacer.join(STOP_WAIT.toMillis());
      writers.shutdown();
      if (!writers.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        abandoned = true;
        for (Long id : List.copyOf(inFlight.keySet())) {
          Long due = inFlight.remove(id);
          if (due != null) {
            fail(id, due, "no answer " + STOP_WAIT.toSeconds() + " s after the load stopped");
          }
        }
        // the writers still held are abandoned (daemon threads); aborting their connections ends them
        writers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the load", e);
    }
    synchronized (opened) {
      for (Connection c : opened) {
        try {
          if (abandoned) {
            // close() would wait for the statement a held writer is in; abort() does not
            c.abort(Runnable::run);
          } else {
            c.close();
          }
        } catch (SQLException ignored) {
          // closing at the end: nothing depends on it
        }
      }
    }
    finalReport = snapshot();
    log.info("load stopped: {}", finalReport.summary());
    return finalReport;
  }

  @Override
  public void close() {
    stop();
  }
}
