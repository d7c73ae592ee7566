package io.pointsman.bench;

import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.sandbox.cluster.SandboxLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a dormant write barrier costs every write: inserts as fast as {@value #WRITERS} sessions
 * can go, straight into a source primary (no router), into a table without a barrier and into the
 * same kind of table with the barrier prepared (its triggers installed, the gate allowing),
 * alternating in rounds of the same length in the same run, so both see the same machine.
 */
final class BarrierCost {
  private static final int WRITERS = 4;
  private static final String PLAIN = "pm_cost_plain";
  private static final String GATED = "pm_cost_gated";

  /**
   * @param plain inserts/s into the table without a barrier, per round
   * @param gated inserts/s into the table with a dormant barrier, per round
   */
  record Figures(List<Double> plain, List<Double> gated, Duration round) {
    double plainMean() {
      return plain.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    double gatedMean() {
      return gated.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    String markdown() {
      StringBuilder md = new StringBuilder("## What a dormant barrier costs a write\n\n");
      md.append("Single-row autocommit inserts from ").append(WRITERS).append(" sessions as fast as they go, straight ")
          .append("into the MoveTables source primary, alternating ").append(round.toSeconds())
          .append(" s rounds between a table without a barrier and one with the barrier prepared (triggers ")
          .append("installed, the gate allowing: each insert reads the drain row and its table's row, then its ")
          .append("group's row, with shared locks).\n\n");
      md.append("| round | without barrier (inserts/s) | dormant barrier (inserts/s) |\n|---:|---:|---:|\n");
      for (int i = 0; i < plain.size(); i++) {
        md.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f |%n", i + 1, plain.get(i), gated.get(i)));
      }
      md.append(String.format(Locale.ROOT, "| mean | %.0f | %.0f (%.1f%% fewer) |%n%n", plainMean(), gatedMean(),
          100 * (1 - gatedMean() / plainMean())));
      return md.toString();
    }
  }

  private BarrierCost() {}

  static Figures run(BenchWorld world, int rounds, Duration round) throws InterruptedException {
    PrimaryEndpoint source = world.sandbox.primary(SandboxLayout.COMMERCE, "0").endpoint();
    for (String table : List.of(PLAIN, GATED)) {
      exec(world, "CREATE TABLE IF NOT EXISTS " + source.dbName() + "." + table
          + " (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, v int NOT NULL)");
    }
    try (HeldLock lock = world.services.locks().lockKeyspace(SandboxLayout.COMMERCE,
        LockOptions.builder().action("bench barrier cost").ttl(Duration.ofSeconds(30)).build())) {
      world.services.barrier().prepare(source, WriteScope.tables(List.of(GATED)), new LockSet(List.of(lock.token())),
          Duration.ofSeconds(30));
    }
    List<Double> plain = new ArrayList<>();
    List<Double> gated = new ArrayList<>();
    insert(world, source, PLAIN, Duration.ofSeconds(1)); // warm-up, not counted
    insert(world, source, GATED, Duration.ofSeconds(1));
    for (int i = 0; i < rounds; i++) {
      plain.add(insert(world, source, PLAIN, round));
      gated.add(insert(world, source, GATED, round));
    }
    return new Figures(plain, gated, round);
  }

  /** Inserts/s into the table from every writer for {@code duration}. */
  private static double insert(BenchWorld world, PrimaryEndpoint source, String table, Duration duration)
      throws InterruptedException {
    AtomicLong done = new AtomicLong();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    CountDownLatch finished = new CountDownLatch(WRITERS);
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    for (int w = 0; w < WRITERS; w++) {
      Thread t = new Thread(() -> {
        try (Connection c = world.sandbox.connect(SandboxLayout.COMMERCE, "0");
            PreparedStatement ps = c.prepareStatement("INSERT INTO " + source.dbName() + "." + table
                + " (v) VALUES (1)")) {
          while (System.nanoTime() < end) {
            ps.executeUpdate();
            done.incrementAndGet();
          }
        } catch (SQLException | RuntimeException e) {
          failed.compareAndSet(null, e);
        } finally {
          finished.countDown();
        }
      }, "barrier-cost-" + w);
      t.setDaemon(true);
      t.start();
    }
    finished.await();
    if (failed.get() != null) {
      throw new IllegalStateException("an insert of the barrier-cost load failed: " + failed.get(), failed.get());
    }
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static void exec(BenchWorld world, String sql) {
    try (Connection c = world.sandbox.connect(SandboxLayout.COMMERCE, "0"); Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
