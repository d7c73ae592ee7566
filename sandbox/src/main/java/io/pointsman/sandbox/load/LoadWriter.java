package io.pointsman.sandbox.load;

import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.Write;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends numbered writes to a {@link WriteTarget} (the sandbox's {@link Router}, or a real vtgate) at a constant rate and records each one's send
 * time, answer time and outcome in a {@link LoadLog}. Write {@code n} is due at
 * {@code start + n / rate} on the monotonic clock, so the schedule does not drift however long
 * single writes take; writers take the next due write as soon as they are free. Stops by itself
 * after the configured duration's writes, or when closed.
 *
 * <p>Every write sent is recorded exactly once: with its answer, or, if it still had none when
 * {@link #close()} stopped waiting, as failed with "no answer"; an answer that comes later is
 * dropped (logged), so the log never holds a write twice nor one the run gave up on as acknowledged.
 */
public final class LoadWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LoadWriter.class);
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final WriteTarget target;
  private final LoadOptions options;
  private final LoadLog loadLog;
  private final long total;
  private final AtomicLong next = new AtomicLong();
  /** Writes sent and not yet recorded, by sequence number; removing one is the right to record it. */
  private final Map<Long, Sent> inFlight = new ConcurrentHashMap<>();
  private final AtomicLong sentCount = new AtomicLong();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final CountDownLatch done;
  private final ExecutorService writers;

  private LoadWriter(WriteTarget target, LoadOptions options) {
    this.target = target;
    this.options = options;
    this.total = options.totalWrites();
    this.done = new CountDownLatch(options.writers());
    AtomicInteger n = new AtomicInteger();
    this.writers = Executors.newFixedThreadPool(options.writers(), r -> {
      Thread t = new Thread(r, "load-writer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.loadLog = new LoadLog(System.nanoTime());
  }

  /** Starts the writers at once; write 0 is due now. */
  public static LoadWriter start(Router router, LoadOptions options) {
    return start(WriteTarget.of(router), options);
  }

  /** Starts the writers at once against any target; write 0 is due now. */
  public static LoadWriter start(WriteTarget target, LoadOptions options) {
    LoadWriter w = new LoadWriter(Objects.requireNonNull(target, "target"), Objects.requireNonNull(options, "options"));
    log.info("load started: {} ({} writes)", options, w.total);
    for (int i = 0; i < options.writers(); i++) {
      w.writers.execute(w::writeLoop);
    }
    return w;
  }

  public LoadLog loadLog() {
    return loadLog;
  }

  /**
   * The number of the first write due after now: it and every later write are sent after this call
   * (the earlier ones are sent already, or wait for a free writer).
   */
  public long nextDue() {
    long elapsed = System.nanoTime() - loadLog.startNanos();
    long seq = Math.max(0, (long) Math.floor(elapsed / 1e9 * options.ratePerSecond()));
    // the estimate may be off by one either way where the schedule's rounding falls
    while (seq > 0 && options.dueOffsetNanos(seq - 1) > elapsed) {
      seq--;
    }
    while (options.dueOffsetNanos(seq) <= elapsed) {
      seq++;
    }
    return Math.min(seq, total);
  }

  /** How many writes were handed to the target so far, answered or not. */
  public long sent() {
    return sentCount.get();
  }

  /** How many writes were sent and are not recorded yet: neither answered nor given up on. */
  public int inFlight() {
    return inFlight.size();
  }

  /**
   * Whether every write sent at or before {@code nanos} ({@link System#nanoTime()}) has been answered
   * or given up on: none of them is still held somewhere, e.g. in vtgate's buffer.
   */
  public boolean answeredAllSentBy(long nanos) {
    return inFlight.values().stream().noneMatch(s -> s.sentNanos() - nanos <= 0);
  }

  /** Waits until every scheduled write has been answered (or the run was stopped). */
  public boolean awaitDone(Duration timeout) throws InterruptedException {
    return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void writeLoop() {
    try {
      while (!stopped.get()) {
        long seq = next.getAndIncrement();
        if (seq >= total) {
          return;
        }
        long due = loadLog.startNanos() + options.dueOffsetNanos(seq);
        if (!waitUntil(due)) {
          return;
        }
        writeOne(seq, due);
      }
    } finally {
      done.countDown();
    }
  }

  /** Parks until the due time; false when stopped or interrupted first. */
  private boolean waitUntil(long due) {
    long left;
    while ((left = due - System.nanoTime()) > 0) {
      if (stopped.get() || Thread.currentThread().isInterrupted()) {
        return false;
      }
      LockSupport.parkNanos(Math.min(left, MAX_PARK_NANOS));
    }
    return !stopped.get();
  }

  private void writeOne(long seq, long due) {
    Write write;
    try {
      write = options.writes().write(seq);
    } catch (RuntimeException e) {
      long now = System.nanoTime();
      loadLog.add(new LoadRecord(seq, -1, due, now, now, LoadRecord.Outcome.ERROR, "no write made: " + e));
      return;
    }
    long sent = System.nanoTime();
    inFlight.put(seq, new Sent(write.shardingKey(), due, sent));
    sentCount.incrementAndGet();
    LoadRecord.Outcome outcome;
    String message;
    try {
      target.send(write);
      outcome = LoadRecord.Outcome.OK;
      message = "";
    } catch (RuntimeException e) {
      outcome = LoadRecord.Outcome.ERROR;
      message = target.failureMessage(e);
      log.debug("load write {} failed: {}", seq, message);
    }
    long ack = System.nanoTime();
    if (inFlight.remove(seq) != null) {
      loadLog.add(new LoadRecord(seq, write.shardingKey(), due, sent, ack, outcome, message));
    } else {
      log.warn("load write {} answered {} after the load had given up on it (it stays recorded as failed)", seq,
          outcome);
    }
  }

  /** A write handed to the target and not answered yet. */
  private record Sent(long key, long dueNanos, long sentNanos) {}

  /**
   * Stops scheduling, lets writes in flight finish (they may be buffered for up to the target's
   * longest answer), records those still without an answer as failed, then interrupts the writers.
   */
  @Override
  public void close() {
    stopped.set(true);
    writers.shutdown();
    Duration grace = target.longestAnswer().plusSeconds(5);
    try {
      if (!writers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        giveUpOnWritesInFlight(grace);
        writers.shutdownNow();
        writers.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      writers.shutdownNow();
      Thread.currentThread().interrupt();
    }
    log.info("load stopped: {} writes answered, {} acknowledged", loadLog.size(), loadLog.acknowledged());
  }

  private void giveUpOnWritesInFlight(Duration grace) {
    for (Long seq : List.copyOf(inFlight.keySet())) {
      Sent s = inFlight.remove(seq);
      if (s != null) {
        String message = "no answer " + grace.toSeconds() + " s after the load stopped";
        loadLog.add(new LoadRecord(seq, s.key(), s.dueNanos(), s.sentNanos(), System.nanoTime(),
            LoadRecord.Outcome.ERROR, message));
        log.warn("load write {} (key {}): {}", seq, s.key(), message);
      }
    }
  }
}
