package io.pointsman.bench;

import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.HashVindex;
import io.pointsman.sandbox.cluster.RunningPrimary;
import io.pointsman.sandbox.cluster.SandboxLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How far the sandbox's stream runner falls behind a busy source: inserts into {@code customer}
 * straight into the MoveTables source primary (not through the router, which sustains about
 * 1000 writes/s on two cores and would cap the rate), at a constant rate from several sessions,
 * while a sampler takes the latest acknowledged row every {@value #SAMPLE_EVERY_MS} ms and times
 * how long after its acknowledgement it is readable on the target shard that owns it. That time
 * is the lag a switch's catch-up must wait out.
 */
final class StreamLag {
  private static final int WRITERS = 4;
  private static final long SAMPLE_EVERY_MS = 20;
  /** A sample not seen on its target in this time ends the run: the runner is not applying. */
  private static final Duration GIVE_UP = Duration.ofSeconds(30);

  /**
   * @param rate the writes per second asked
   * @param achieved the writes per second acknowledged
   * @param lag from a row's acknowledgement on the source to its first read on the target
   */
  record Figures(double rate, double achieved, long writes, Stats lag) {}

  private StreamLag() {}

  /** Creates the MoveTables workflow, waits for its copy, then measures one run per rate. */
  static List<Figures> run(BenchWorld world, List<Double> rates, Duration each, long firstKey)
      throws InterruptedException {
    CreatedWorkflow created = BenchMigration.moveTables(2).create().apply(world.sandbox);
    world.awaitCopied(created);
    List<Figures> figures = new ArrayList<>();
    long key = firstKey;
    for (double rate : rates) {
      figures.add(measure(world, rate, each, key));
      key += 10_000_000L;
    }
    return figures;
  }

  private static Figures measure(BenchWorld world, double rate, Duration duration, long firstKey)
      throws InterruptedException {
    RunningPrimary source = world.sandbox.primary(SandboxLayout.COMMERCE, "0");
    AtomicLong nextSlot = new AtomicLong();
    AtomicLong lastAcked = new AtomicLong(-1);
    AtomicLong lastAckedAt = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    long interval = (long) (1e9 / rate);
    CountDownLatch done = new CountDownLatch(WRITERS);
    for (int w = 0; w < WRITERS; w++) {
      Thread t = new Thread(() -> {
        try (Connection c = world.sandbox.connect(SandboxLayout.COMMERCE, "0");
            PreparedStatement insert = c.prepareStatement("INSERT INTO " + source.endpoint().dbName()
                + ".customer (customer_id, email) VALUES (?, 'lag@example.com')")) {
          while (true) {
            long slot = nextSlot.getAndIncrement();
            long due = start + slot * interval;
            if (due >= end) {
              return;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            }
            long id = firstKey + slot;
            insert.setLong(1, id);
            insert.executeUpdate();
            long now = System.nanoTime();
            acked.incrementAndGet();
            synchronized (lastAcked) {
              if (id > lastAcked.get()) {
                lastAcked.set(id);
                lastAckedAt.set(now);
              }
            }
          }
        } catch (SQLException e) {
          throw new IllegalStateException("the lag load's insert failed: " + e.getMessage(), e);
        } finally {
          done.countDown();
        }
      }, "lag-writer-" + w);
      t.setDaemon(true);
      t.start();
    }
    List<Long> lags = Collections.synchronizedList(new ArrayList<>());
    try (Connection low = world.sandbox.connect(SandboxLayout.CUSTOMER, "-80");
        Connection high = world.sandbox.connect(SandboxLayout.CUSTOMER, "80-")) {
      String lowDb = world.sandbox.primary(SandboxLayout.CUSTOMER, "-80").endpoint().dbName();
      String highDb = world.sandbox.primary(SandboxLayout.CUSTOMER, "80-").endpoint().dbName();
      while (System.nanoTime() < end) {
        long id;
        long at;
        synchronized (lastAcked) {
          id = lastAcked.get();
          at = lastAckedAt.get();
        }
        if (id >= 0) {
          boolean lowSide = HashVindex.inKeyRange(id, new KeyRange("", "80"));
          lags.add(seen(lowSide ? low : high, lowSide ? lowDb : highDb, id) - at);
        }
        TimeUnit.MILLISECONDS.sleep(SAMPLE_EVERY_MS);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading a target shard failed: " + e.getMessage(), e);
    }
    done.await();
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Figures(rate, acked.get() / Math.max(seconds, duration.toNanos() / 1e9), acked.get(),
        Stats.ofNanos(lags));
  }

  /** When the row was first readable on the target (polled), in nanoTime. */
  private static long seen(Connection target, String db, long id) throws SQLException {
    long giveUp = System.nanoTime() + GIVE_UP.toNanos();
    try (PreparedStatement ps = target.prepareStatement("SELECT 1 FROM " + db + ".customer WHERE customer_id = ?")) {
      ps.setLong(1, id);
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          long now = System.nanoTime();
          if (rs.next()) {
            return now;
          }
          if (now > giveUp) {
            throw new IllegalStateException("row " + id + " was not on " + db + " " + GIVE_UP.toSeconds()
                + " s after the source acknowledged it: the stream runner is not applying");
          }
        }
        LockSupport.parkNanos(200_000);
      }
    }
  }

  static String markdown(List<Figures> figures) {
    StringBuilder md = new StringBuilder("## Stream runner lag\n\n");
    md.append("Inserts straight into the MoveTables source primary at a constant rate from ").append(WRITERS)
        .append(" sessions; every ").append(SAMPLE_EVERY_MS).append(" ms the latest acknowledged row is timed from ")
        .append("its acknowledgement to its first read on the target shard that owns it. The runner applies the ")
        .append("source transactions queued behind the one it takes in one target transaction. Target: lag under ")
        .append("50 ms at 2000 writes/s.\n\n");
    md.append("| asked writes/s | achieved writes/s | writes | samples | lag p50 / p99 / max ms |\n");
    md.append("|---:|---:|---:|---:|---|\n");
    for (Figures f : figures) {
      md.append(String.format(Locale.ROOT, "| %.0f | %.0f | %d | %d | %s |%n", f.rate(), f.achieved(), f.writes(),
          f.lag().count(), f.lag().summaryMillis()));
    }
    return md.append('\n').toString();
  }
}
