package io.pointsman.e2e.vitess;

import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadRecord;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VtgateWrites;
import io.pointsman.sandbox.router.Write;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A constant write load through a real vtgate, as an application sees it: {@code writesPerSecond}
 * single-row inserts into {@code customer} with no database selected, so that vtgate's routing rules
 * (not the client) decide which keyspace takes them. Each write has its own {@code customer_id},
 * increasing from {@code firstId}, and the email {@link #email(long)}. It is recorded once: as
 * acknowledged when its autocommit insert returned OK, as failed with vtgate's message otherwise,
 * or, if it had no answer when {@link #stop()} gave up waiting, as failed with "no answer". A failed
 * write is never tried again: the next write takes the next id, so the ledger can tell a lost
 * acknowledged write from one that was refused.
 *
 * <p>A view over the bench's load: a {@link LoadWriter} (the fixed schedule, the writers, the
 * record of every write and the giving up on unanswered ones) sending to {@link VtgateWrites} (a
 * connection per writer, dropped after a failed write), read back here by {@code customer_id}. A
 * write's latency runs from its scheduled time, so the wait for a free writer counts, as it would
 * for a client with that many connections.
 */
public final class VtgateLoad implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(VtgateLoad.class);

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

  /** Longer than vtgate's 20 s buffering limit; {@link #stop()} waits this plus 5 s for writes in flight. */
  private static final Duration LONGEST_ANSWER = Duration.ofSeconds(40);
  private static final String INSERT = "insert into customer(customer_id, email) values (?, ?)";

  private final long firstId;
  private final VtgateWrites target;
  private final LoadWriter writer;
  /** The wall-clock time of the schedule's start (write 0's due time), for {@link FailedWrite#dueAt()}. */
  private final Instant startInstant;
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
    Objects.requireNonNull(cluster, "cluster");
    this.firstId = firstId;
    this.target = new VtgateWrites("127.0.0.1", cluster.vtgateMysqlPort(), LONGEST_ANSWER);
    // as many writes as a run may schedule: until stop(), however long a test runs (55 h at 50 writes/s)
    Duration runsUpTo = Duration.ofSeconds(LoadOptions.MAX_WRITES / writesPerSecond);
    LoadOptions options = LoadOptions.builder().ratePerSecond(writesPerSecond).writers(writers).duration(runsUpTo)
        .writes(seq -> Write.of("customer", firstId + seq, INSERT, firstId + seq, email(firstId + seq))).build();
    this.startInstant = Instant.now();
    this.writer = LoadWriter.start(target, options);
  }

  /** The email of the write with this id: the ledger reads it back. */
  public static String email(long id) {
    return "load-" + id + "@example.com";
  }

  /** The id the next write will take: writes from here on are sent after this call. */
  public long nextId() {
    return firstId + writer.nextDue();
  }

  /** How many writes with an id of {@code fromId} or more were acknowledged so far. */
  public long ackedFrom(long fromId) {
    return writer.loadLog().records().stream().filter(r -> r.acknowledged() && r.key() >= fromId).count();
  }

  /** How many writes were sent and have neither been acknowledged nor failed yet. */
  public int inFlight() {
    return writer.inFlight();
  }

  /** The slowest recorded write with an id in {@code [fromId, toId)}; zero if none was recorded. */
  public Duration maxLatency(long fromId, long toId) {
    return writer.loadLog().records().stream().filter(r -> r.key() >= fromId && r.key() < toId)
        .map(VtgateLoad::latency).max(Comparator.naturalOrder()).orElse(Duration.ZERO);
  }

  /** What the load saw so far; the writes in flight are in neither list yet. Failures in the order they came. */
  public LoadReport snapshot() {
    List<LoadRecord> records = writer.loadLog().records();
    List<Long> acked = new ArrayList<>();
    List<LoadRecord> failedRecords = new ArrayList<>();
    Duration max = Duration.ZERO;
    for (LoadRecord r : records) {
      if (r.acknowledged()) {
        acked.add(r.key());
      } else {
        failedRecords.add(r);
      }
      Duration took = latency(r);
      if (took.compareTo(max) > 0) {
        max = took;
      }
    }
    failedRecords.sort(Comparator.comparingLong(LoadRecord::ackNanos));
    List<FailedWrite> failed = failedRecords.stream().map(r -> new FailedWrite(r.key(),
        startInstant.plusNanos(r.dueNanos() - writer.loadLog().startNanos()), latency(r), r.message())).toList();
    return new LoadReport(acked, failed, max, writer.sent());
  }

  /** From its scheduled time to its answer (or to when the load gave up on it). */
  private static Duration latency(LoadRecord r) {
    return Duration.ofNanos(r.ackNanos() - r.dueNanos());
  }

  /**
   * Stops sending, waits up to 45 s for the writes in flight to end, records those still without an
   * answer as failed ("no answer"), and returns what the load saw. Every write sent is then in
   * exactly one of the report's lists. A second call returns the same report.
   */
  public synchronized LoadReport stop() {
    if (finalReport != null) {
      return finalReport;
    }
    try {
      writer.close();
    } finally {
      target.close();
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
