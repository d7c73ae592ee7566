package io.pointsman.bench;

import io.pointsman.bench.SwitchSeries.Block;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Issue 22's targets, each beside what this run measured and whether it was met, so that a full
 * run states them itself instead of leaving the arithmetic to whoever writes it up. A target whose
 * figures the run did not take (a scale point, the floor or a lag rate left out by the options)
 * says which option takes them, instead of a verdict. All through Temporal, as the issue asks.
 */
final class Issue22Targets {
  static final Duration P99_W = Duration.ofMillis(250);
  /** W p50 of a MoveTables of {@link #MANY_TABLES} tables against one of {@link #FEW_TABLES}. */
  static final double TABLES_RATIO = 1.5;
  static final int FEW_TABLES = 10;
  static final int MANY_TABLES = 1000;
  static final double FLOOR_RATIO = 2.0;
  static final double W_RATIO = 1.2;
  static final double TOTAL_RATIO = 1.3;
  static final Duration LAG_P99 = Duration.ofMillis(50);
  static final double LAG_RATE = 2000;
  private static final String WINDOWS = "needs the write-window blocks (--rates)";

  private Issue22Targets() {}

  static String markdown(List<Block> windows, List<Block> scale, Optional<Floor.Figures> floor,
      List<StreamLag.Figures> lag) {
    StringBuilder md = new StringBuilder("## Issue 22's targets\n\n");
    md.append("Through Temporal, as the issue asks, each target beside this run's figures; the ratios set the ")
        .append("switches against the same switches executed directly in the same blocks.\n\n");
    md.append("| target | measured | result |\n|---|---|---|\n");
    row(md, "p99 W < " + Stats.millis(P99_W) + " ms, every block, no failed write", p99(windows));
    row(md, "W p50 of " + MANY_TABLES + " tables ≤ " + factor(TABLES_RATIO) + " × " + FEW_TABLES + " tables",
        tables(scale));
    row(md, "W p50 ≤ " + factor(FLOOR_RATIO) + " × the floor", floor(windows, floor));
    row(md, "W p50 Temporal / direct ≤ " + factor(W_RATIO),
        ratios(windows, W_RATIO, Report::windows));
    row(md, "total p50 Temporal / direct ≤ " + factor(TOTAL_RATIO),
        ratios(windows, TOTAL_RATIO, Report::totals));
    row(md, "stream runner lag p99 < " + Stats.millis(LAG_P99) + " ms at " + Report.rate(LAG_RATE) + " writes/s",
        lag(lag));
    return md.append('\n').toString();
  }

  /** What one row measured, and its verdict. */
  private record Measured(String figures, String result) {
    static Measured notTaken(String how) {
      return new Measured("–", "not measured: " + how);
    }

    /** Met at every point, at some, or at none, from the count of points that met it. */
    static Measured counted(List<String> figures, int met) {
      int n = figures.size();
      String result = met == n ? "met" + (n > 1 ? " at all " + n + " points" : "")
          : met == 0 ? "**missed**" : "**met at " + met + " of " + n + " points**";
      return new Measured(String.join("; ", figures), result);
    }
  }

  private static void row(StringBuilder md, String target, Measured m) {
    md.append("| ").append(target).append(" | ").append(m.figures()).append(" | ").append(m.result()).append(" |\n");
  }

  private static Measured p99(List<Block> windows) {
    List<String> figures = new ArrayList<>();
    int met = 0;
    for (Block b : withTemporal(windows)) {
      List<SwitchMeasurement> t = b.by(Report.TEMPORAL);
      Duration p99 = Report.windows(t).p99();
      long failed = t.stream().mapToLong(m -> m.window().errors()).sum();
      figures.add(where(b) + Stats.millis(p99) + " ms" + (failed == 0 ? "" : ", " + failed + " failed"));
      if (p99.compareTo(P99_W) < 0 && failed == 0) {
        met++;
      }
    }
    return figures.isEmpty() ? Measured.notTaken(WINDOWS) : Measured.counted(figures, met);
  }

  private static Measured tables(List<Block> scale) {
    Optional<Block> few = scaleBlock(scale, FEW_TABLES);
    Optional<Block> many = scaleBlock(scale, MANY_TABLES);
    if (few.isEmpty() || many.isEmpty()) {
      return Measured.notTaken("needs --scale-tables with " + FEW_TABLES + " and " + MANY_TABLES);
    }
    Duration w10 = Report.windows(few.get().by(Report.TEMPORAL)).p50();
    Duration w1000 = Report.windows(many.get().by(Report.TEMPORAL)).p50();
    double ratio = Report.ratio(w1000, w10);
    String figures = Stats.millis(w1000) + " / " + Stats.millis(w10) + " ms = " + Report.format(ratio);
    return Measured.counted(List.of(figures), ratio <= TABLES_RATIO ? 1 : 0);
  }

  private static Measured floor(List<Block> windows, Optional<Floor.Figures> floor) {
    if (floor.isEmpty()) {
      return Measured.notTaken("needs the floor (it runs with the write-window blocks)");
    }
    Duration f = floor.get().total().p50();
    List<Block> measured = withTemporal(windows).stream()
        .filter(b -> b.migration().label().equals(floor.get().migration())).toList();
    if (measured.isEmpty()) {
      return Measured.notTaken("needs write-window blocks of " + floor.get().migration());
    }
    Measured m = perBlock(measured, b -> Report.ratio(Report.windows(b.by(Report.TEMPORAL)).p50(), f), FLOOR_RATIO);
    return new Measured("floor " + Stats.millis(f) + " ms; " + m.figures(), m.result());
  }

  private static Measured ratios(List<Block> windows, double target, Function<List<SwitchMeasurement>, Stats> of) {
    List<Block> measured = withTemporal(windows).stream().filter(b -> !b.by(Report.DIRECT).isEmpty()).toList();
    if (measured.isEmpty()) {
      return Measured.notTaken(WINDOWS);
    }
    return perBlock(measured,
        b -> Report.ratio(of.apply(b.by(Report.TEMPORAL)).p50(), of.apply(b.by(Report.DIRECT)).p50()), target);
  }

  /** Each block's ratio against a target it meets when at most the target. */
  private static Measured perBlock(List<Block> blocks, ToDoubleFunction<Block> ratioOf, double target) {
    List<String> figures = new ArrayList<>();
    int met = 0;
    for (Block b : blocks) {
      double ratio = ratioOf.applyAsDouble(b);
      figures.add(where(b) + Report.format(ratio));
      if (ratio <= target) {
        met++;
      }
    }
    return Measured.counted(figures, met);
  }

  private static Measured lag(List<StreamLag.Figures> lag) {
    Optional<StreamLag.Figures> at = lag.stream().filter(f -> f.rate() == LAG_RATE).findFirst();
    if (at.isEmpty()) {
      return Measured.notTaken("needs --lag-rates with " + Report.rate(LAG_RATE));
    }
    Duration p99 = at.get().lag().p99();
    return Measured.counted(List.of("p99 " + Stats.millis(p99) + " ms"), p99.compareTo(LAG_P99) < 0 ? 1 : 0);
  }

  private static List<Block> withTemporal(List<Block> blocks) {
    return blocks.stream().filter(b -> !b.by(Report.TEMPORAL).isEmpty()).toList();
  }

  private static Optional<Block> scaleBlock(List<Block> scale, int tables) {
    String label = BenchMigration.moveTables(tables).label();
    return scale.stream().filter(b -> b.migration().label().equals(label) && !b.by(Report.TEMPORAL).isEmpty())
        .findFirst();
  }

  /** How a figure of one block begins: its migration and rate. */
  private static String where(Block b) {
    return b.migration().label() + " at " + Report.rate(b.rate()) + " writes/s: ";
  }

  /** A target's factor as written in the issue: 2, 1.5. */
  private static String factor(double target) {
    return BigDecimal.valueOf(target).stripTrailingZeros().toPlainString();
  }
}
