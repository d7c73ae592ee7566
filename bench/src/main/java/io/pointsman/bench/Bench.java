package io.pointsman.bench;

import io.pointsman.bench.SwitchSeries.Block;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a {@link BenchPlan} and renders its report: the write window of MoveTables and Reshard
 * switches through Temporal and directly, the locks, and the scale points, each migration on a
 * sandbox of its own that is stopped and deleted before the next starts.
 */
final class Bench {
  /** Each block's load writes keys of its own, far apart, so no insert collides with an earlier one. */
  private static final long KEYS_PER_BLOCK = 10_000_000L;

  private final BenchPlan plan;
  private final Consumer<String> say;
  /** The Temporal CLI whose dev server the worlds run on; empty for the SDK's test server. */
  private final Optional<Path> temporalServer;
  private long nextKey = KEYS_PER_BLOCK;
  /** The floor, measured on the first write-window migration (MoveTables) before its load runs. */
  private Optional<Floor.Figures> floor = Optional.empty();

  Bench(BenchPlan plan, Consumer<String> say) {
    this(plan, say, Optional.empty());
  }

  /** @param temporalServer the Temporal CLI whose dev server the worlds run on; empty for the SDK's test server */
  Bench(BenchPlan plan, Consumer<String> say, Optional<Path> temporalServer) {
    this.plan = plan;
    this.say = say;
    this.temporalServer = temporalServer;
  }

  /** Runs the plan. */
  BenchResult run() throws InterruptedException {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    List<Block> windows = new ArrayList<>();
    Optional<LockBench.Figures> locks = Optional.empty();
    if (plan.cycles() > 0) {
      BenchMigration moveTables = BenchMigration.moveTables(2);
      locks = Optional.of(onWorld(moveTables, world -> {
        say.accept("locks: " + plan.locks());
        return LockBench.run(world.sandbox.etcdClient(), world.sandbox.options().topoPaths(), plan.locks());
      }, world -> windows.addAll(windowBlocks(world, moveTables))));
      BenchMigration reshard = BenchMigration.reshard(List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-"));
      onWorld(reshard, world -> null, world -> windows.addAll(windowBlocks(world, reshard)));
    }
    List<Block> scale = new ArrayList<>();
    for (int shards : plan.scaleShards()) {
      BenchMigration m = BenchMigration.splitInto(shards);
      onWorld(m, world -> null, world -> scale.add(scaleBlock(world, m)));
    }
    for (int tables : plan.scaleTables()) {
      BenchMigration m = BenchMigration.moveTables(tables);
      onWorld(m, world -> null, world -> scale.add(scaleBlock(world, m)));
    }
    List<StreamLag.Figures> lag = new ArrayList<>();
    if (!plan.lagRates().isEmpty()) {
      BenchMigration m = BenchMigration.moveTables(2);
      onWorld(m, world -> null, world -> {
        say.accept("stream lag: " + plan.lagRates() + " writes/s straight into the source, "
            + plan.lagDuration().toSeconds() + " s each");
        lag.addAll(StreamLag.run(world, plan.lagRates(), plan.lagDuration(), takeKeys()));
        lag.forEach(f -> say.accept("stream lag at " + f.rate() + " writes/s (achieved " + Math.round(f.achieved())
            + "): p50/p99/max " + f.lag().summaryMillis() + " ms"));
      });
    }
    Optional<BarrierCost.Figures> cost = Optional.empty();
    if (plan.costRounds() > 0) {
      BenchMigration m = BenchMigration.moveTables(2);
      cost = Optional.of(onWorld(m, world -> {
        say.accept("barrier cost: " + plan.costRounds() + " rounds of " + plan.costRound().toSeconds()
            + " s without and with a dormant barrier");
        BarrierCost.Figures f = BarrierCost.run(world, plan.costRounds(), plan.costRound());
        say.accept(String.format(java.util.Locale.ROOT, "barrier cost: %.0f inserts/s without, %.0f with a dormant"
            + " barrier", f.plainMean(), f.gatedMean()));
        return f;
      }, world -> { }));
    }
    Optional<LocalActivityCost.Figures> localActivity = Optional.empty();
    if (plan.localActivityCalls() > 0) {
      say.accept("local-activity cost: " + plan.localActivityCalls() + " calls waiting each of "
          + LocalActivityCost.WAITS.stream().map(w -> Long.toString(w.toMillis())).toList() + " ms");
      localActivity = Optional.of(LocalActivityCost.run(plan.localActivityCalls()));
      localActivity.get().points().forEach(p -> say.accept("local-activity cost, waiting " + p.waited().toMillis()
          + " ms: gap to the next call mean " + Stats.millis(p.gap().mean()) + ", p50/p99/max "
          + p.gap().summaryMillis() + " ms"));
    }
    return new BenchResult(started, Duration.ofNanos(System.nanoTime() - t0), windows, locks, scale, lag, cost,
        localActivity, floor, BenchWorld.describeTemporal(temporalServer));
  }

  /**
   * What a run measured.
   *
   * @param windows the write-window blocks, Temporal and direct
   * @param locks the lock figures, when the write-window part ran
   * @param scale the scale points, Temporal only
   * @param lag the stream runner's lag, per rate
   * @param barrierCost inserts/s without and with a dormant barrier, when measured
   * @param localActivity what the SDK's hand-offs cost a local activity, when measured
   * @param floor the write window's floor, when the write-window part ran
   * @param temporal which Temporal server the worlds ran on
   */
  record BenchResult(Instant started, Duration took, List<Block> windows, Optional<LockBench.Figures> locks,
      List<Block> scale, List<StreamLag.Figures> lag, Optional<BarrierCost.Figures> barrierCost,
      Optional<LocalActivityCost.Figures> localActivity, Optional<Floor.Figures> floor, String temporal) {
    BenchResult {
      windows = List.copyOf(windows);
      scale = List.copyOf(scale);
      lag = List.copyOf(lag);
    }

    String report(String command, Machine machine) {
      String report = Report.render(command, machine, temporal, started, took, windows, locks, scale,
          Issue22Targets.markdown(windows, scale, floor, lag));
      report = lag.isEmpty() ? report : report + StreamLag.markdown(lag);
      report = floor.map(f -> Floor.markdown(f, windows)).map(report::concat).orElse(report);
      report = barrierCost.map(c -> c.markdown()).map(report::concat).orElse(report);
      return localActivity.map(c -> c.markdown()).map(report::concat).orElse(report);
    }
  }

  private List<Block> windowBlocks(BenchWorld world, BenchMigration m) throws InterruptedException {
    SwitchSeries series = prepared(world, m);
    if (floor.isEmpty()) {
      int samples = Math.max(3, 2 * plan.cycles());
      say.accept(m.label() + ": the floor, " + samples + " times without load");
      floor = Optional.of(Floor.run(world, m, samples));
      say.accept(m.label() + ": floor p50/p99/max " + floor.get().total().summaryMillis() + " ms");
    }
    List<Block> blocks = new ArrayList<>();
    for (double rate : plan.rates()) {
      say.accept(m.label() + ": " + plan.cycles() + " cycles at " + rate + " writes/s, Temporal and direct");
      Block b = series.measure(rate, plan.cycles(), true, takeKeys());
      say.accept(m.label() + " at " + rate + " writes/s: W p50/p99/max temporal "
          + Report.windows(b.by(Report.TEMPORAL)).summaryMillis() + " ms, direct "
          + Report.windows(b.by(Report.DIRECT)).summaryMillis() + " ms");
      blocks.add(b);
    }
    return blocks;
  }

  private Block scaleBlock(BenchWorld world, BenchMigration m) throws InterruptedException {
    SwitchSeries series = prepared(world, m);
    say.accept(m.label() + ": " + plan.scaleCycles() + " cycles at " + plan.scaleRate() + " writes/s, Temporal");
    Block b = series.measure(plan.scaleRate(), plan.scaleCycles(), false, takeKeys());
    say.accept(m.label() + ": W p50/p99/max " + Report.windows(b.switches()).summaryMillis() + " ms, total "
        + Report.totals(b.switches()).summaryMillis() + " ms");
    return b;
  }

  private SwitchSeries prepared(BenchWorld world, BenchMigration m) {
    say.accept(m.label() + ": creating the workflow, copying, switching reads");
    SwitchSeries series = new SwitchSeries(world, m);
    series.prepare();
    return series;
  }

  private long takeKeys() {
    long k = nextKey;
    nextKey += KEYS_PER_BLOCK;
    return k;
  }

  /**
   * Starts a world for {@code m}, runs {@code first} then {@code then} on it, and stops it.
   *
   * @return what {@code first} returned
   */
  private <T> T onWorld(BenchMigration m, WorldStep<T> first, WorldWork then) throws InterruptedException {
    say.accept(m.label() + ": starting a sandbox of " + m.primaries() + " MariaDB primaries");
    long t = System.nanoTime();
    try (BenchWorld world = BenchWorld.start(m::applyTo, temporalServer)) {
      say.accept(m.label() + ": sandbox up in " + Duration.ofNanos(System.nanoTime() - t).toSeconds() + " s");
      T result = first.apply(world);
      then.accept(world);
      return result;
    }
  }

  @FunctionalInterface
  private interface WorldStep<T> {
    T apply(BenchWorld world) throws InterruptedException;
  }

  @FunctionalInterface
  private interface WorldWork {
    void accept(BenchWorld world) throws InterruptedException;
  }
}
