package io.pointsman.bench;

import io.pointsman.bench.SwitchSeries.Block;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** BENCHMARKS.md: the machine, the command, the method and the figures of one run. */
final class Report {
  static final String TEMPORAL = "temporal";
  static final String DIRECT = "direct";
  /** Issue 8's targets. */
  static final Duration TARGET_P99_W = Duration.ofSeconds(1);
  static final double TARGET_RATIO = 1.3;

  private final StringBuilder md = new StringBuilder();

  /** @param targets a section to follow the summary (issue 22's targets); empty for none */
  static String render(String command, Machine machine, String temporal, Instant started, Duration took,
      List<Block> windows, Optional<LockBench.Figures> locks, List<Block> scale, String targets) {
    Report r = new Report();
    r.header(command, machine, temporal, started, took);
    r.summary(windows, locks, scale);
    r.md.append(targets);
    if (!windows.isEmpty()) {
      r.windowTable(windows);
      r.durability(windows);
    }
    locks.ifPresent(f -> r.md.append(LockBench.markdown(f)).append('\n'));
    if (!scale.isEmpty()) {
      r.scale(scale);
    }
    List<Block> all = new ArrayList<>(windows);
    all.addAll(scale);
    if (!all.isEmpty()) {
      r.history(all);
      r.temporalTime(all);
      r.cpu(all);
      r.steps(all);
    }
    return r.md.toString();
  }

  private void header(String command, Machine m, String temporal, Instant started, Duration took) {
    md.append("# pointsman benchmarks\n\n");
    md.append("Written by the `bench` module (`./scripts/bench.sh`); every figure of the sections it writes comes ")
        .append("from the one run in the table below, every switch measured under load against its baseline in that ")
        .append("same run. A section that names another commit or run was added by hand after it and has that ")
        .append("run's figures.\n\n");
    md.append("| | |\n|---|---|\n");
    row("command", "`" + command + "`");
    row("started", started.truncatedTo(ChronoUnit.SECONDS).toString());
    row("took", minutes(took));
    row("machine", m.cores() + " cores, " + m.memory() + ", " + m.os());
    row("java", m.java());
    row("etcd", m.etcd());
    row("MariaDB", m.mariadb());
    row("commit", m.commit());
    row("Temporal", temporal);
    md.append('\n');
    md.append("""
        ## Method

        Each migration runs on a sandbox of its own (etcd and one MariaDB per shard primary on loopback, the
        stream runner, the router), with Temporal in dev mode (the SDK's test server in the same JVM, real gRPC;
        with `--temporal-server`, the real dev server) and a pointsman worker against it. The workflow is created, copied, and its reads switched; then, under
        constant-rate inserts into `customer` through the router (vtgate's stand-in, which buffers writes that
        meet denied tables or a barrier, like vtgate), writes are switched back and forth. Each cycle is a
        `SwitchTraffic --tablet-types PRIMARY` and a `ReverseTraffic` through Temporal, then the same two switches
        executed **directly**: the same activity implementations, called in the workflow's happy-path order in
        this process (the reads again under the locks, the checks, the prepared barrier, the shard locks, the
        planned primaries, a fence epoch per step), with no Temporal, no history, no heartbeats and no
        compensation (`DirectSwitch`). One second of load separates switches. Before its first block each
        migration runs %d cycles through both executors, unmeasured and without load, so that class loading
        and JIT compilation, which a long-running worker has long paid for, are not in the first block.

        - **W**: the longest gap between two consecutive acknowledged writes, among the gaps that overlap the
          switch (from the start request to the workflow's result). At rate r the gap without any switch is
          about 1/r.
        - **B**: the longest latency of one acknowledged write in flight during the switch (time buffered
          included); **E**: writes in flight during it that failed.
        - **barrier**: by the executor's own step times, from the start of `stopSourceWrites` to the end of
          `changeRouting` (Temporal's from the workflow's progress query, in whole milliseconds).
        - **total**: the whole action as its caller sees it, locks and state reads included.
        - Figures are p50 / p99 / max over the switches listed, by nearest rank: with fewer than 100
          switches p99 is the largest of them, so it equals max.

        """.formatted(SwitchSeries.WARM_UP_CYCLES));
  }

  /** The targets of issue 8, each with what this run measured against it. */
  private void summary(List<Block> windows, Optional<LockBench.Figures> locks, List<Block> scale) {
    md.append("## Summary\n\n");
    if (!windows.isEmpty()) {
      md.append("The targets in brackets are issue 8's; issue 22's follow in a section of their own.\n\n");
    }
    for (Block b : windows) {
      List<SwitchMeasurement> t = b.by(TEMPORAL);
      List<SwitchMeasurement> d = b.by(DIRECT);
      if (t.isEmpty()) {
        continue;
      }
      Stats w = windows(t);
      md.append("- ").append(b.migration().label()).append(" at ").append(rate(b.rate())).append(" writes/s: p99 W ")
          .append(Stats.millis(w.p99())).append(" ms through Temporal (target < ").append(Stats.millis(TARGET_P99_W))
          .append(" ms: ").append(w.p99().compareTo(TARGET_P99_W) < 0 ? "met" : "**missed**").append(")");
      if (!d.isEmpty()) {
        double ratio = ratio(w.p50(), windows(d).p50());
        md.append("; W p50 Temporal / direct ").append(format(ratio)).append(" (target ≤ ").append(TARGET_RATIO)
            .append(": ").append(ratio <= TARGET_RATIO ? "met" : "**missed**").append("), total p50 ")
            .append(format(ratio(totals(t).p50(), totals(d).p50())));
      }
      long errors = t.stream().mapToLong(m -> m.window().errors()).sum()
          + d.stream().mapToLong(m -> m.window().errors()).sum();
      md.append("; ").append(errors).append(" failed writes; ").append(readBack(b)).append('\n');
    }
    locks.ifPresent(f -> md.append("- Locks: acquire p50 ").append(Stats.millis(f.acquire().p50()))
        .append(" ms against an etcd floor of ").append(Stats.millis(f.rawAcquire().p50())).append(" ms; ")
        .append(f.renewal().locks()).append(" locks with TTL ").append(f.renewal().ttl().toSeconds())
        .append(" s held for ").append(f.renewal().heldFor().toSeconds()).append(" s: ").append(f.renewal().losses())
        .append(" lost\n"));
    for (Block b : scale) {
      List<SwitchMeasurement> s = b.by(TEMPORAL);
      md.append("- Scale, ").append(b.migration().label()).append(": W p50 ").append(Stats.millis(windows(s).p50()))
          .append(" ms, total p50 ").append(Stats.millis(totals(s).p50())).append(" ms; ").append(readBack(b))
          .append('\n');
    }
    md.append('\n');
  }

  /** The block's writes read back through the router once its load ended: what a switch lost or wrote twice. */
  private static String readBack(Block b) {
    return b.load().acknowledged() + " acknowledged writes read back: " + b.load().missing().size() + " lost, "
        + b.load().duplicated().size() + " duplicated";
  }

  private void windowTable(List<Block> blocks) {
    md.append("## Write-unavailability window\n\n");
    md.append("Target: p99 W under ").append(Stats.millis(TARGET_P99_W)).append(" ms through Temporal. ")
        .append("Published anchors: Vitess cut-overs take seconds, gh-ost's cut-over lock waits up to 3 s, ")
        .append("Shopify reports about 2.5 s.\n\n");
    md.append("| migration | rate asked / achieved (writes/s) | executor | switches | W p50 / p99 / max (ms) "
        + "| B p99 / max (ms) | E | barrier p50 / p99 / max (ms) | total p50 / p99 / max (ms) | p99 W < 1 s |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Block b : blocks) {
      for (String executor : List.of(TEMPORAL, DIRECT)) {
        List<SwitchMeasurement> s = b.by(executor);
        if (s.isEmpty()) {
          continue;
        }
        Stats w = windows(s);
        Stats latency = Stats.ofDurations(s.stream().map(m -> m.window().longestWrite()).toList());
        long errors = s.stream().mapToLong(m -> m.window().errors()).sum();
        md.append("| ").append(b.migration().label())
            .append(" | ").append(rate(b.rate())).append(" / ").append(rate(b.achievedRate()))
            .append(" | ").append(executor)
            .append(" | ").append(s.size())
            .append(" | ").append(w.summaryMillis())
            .append(" | ").append(Stats.millis(latency.p99())).append(" / ").append(Stats.millis(latency.max()))
            .append(" | ").append(errors)
            .append(" | ").append(barriers(s).map(Stats::summaryMillis).orElse("–"))
            .append(" | ").append(totals(s).summaryMillis())
            .append(" | ").append(w.p99().compareTo(TARGET_P99_W) < 0 ? "yes" : "**no**")
            .append(" |\n");
      }
    }
    md.append('\n');
  }

  private void durability(List<Block> blocks) {
    md.append("## The cost of durability\n\n");
    md.append("Temporal against direct execution of the same steps, in the same run (ratio = Temporal / direct; ")
        .append("target ≤ ").append(TARGET_RATIO).append(").\n\n");
    md.append("| migration | rate | W p50 ratio | W p99 ratio | barrier p50 ratio | total p50 ratio | "
        + "total p50 Temporal / direct (ms) | W p50 ratio ≤ 1.3 |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Block b : blocks) {
      List<SwitchMeasurement> t = b.by(TEMPORAL);
      List<SwitchMeasurement> d = b.by(DIRECT);
      if (t.isEmpty() || d.isEmpty()) {
        continue;
      }
      double w50 = ratio(windows(t).p50(), windows(d).p50());
      String barrier = barriers(t).flatMap(bt -> barriers(d).map(bd -> format(ratio(bt.p50(), bd.p50()))))
          .orElse("–");
      md.append("| ").append(b.migration().label())
          .append(" | ").append(rate(b.rate()))
          .append(" | ").append(format(w50))
          .append(" | ").append(format(ratio(windows(t).p99(), windows(d).p99())))
          .append(" | ").append(barrier)
          .append(" | ").append(format(ratio(totals(t).p50(), totals(d).p50())))
          .append(" | ").append(Stats.millis(totals(t).p50())).append(" / ").append(Stats.millis(totals(d).p50()))
          .append(" | ").append(w50 <= TARGET_RATIO ? "yes" : "**no**")
          .append(" |\n");
    }
    md.append('\n');
  }

  /**
   * Where a switch through Temporal spends the time the direct switch does not: its steps against the
   * SDK's time inside the workflow tasks and the server's round trips between them.
   */
  private void temporalTime(List<Block> blocks) {
    md.append("## Where Temporal's time goes\n\n");
    md.append("Each switch through Temporal split by its history's workflow tasks (the server's times) and its "
        + "steps (the progress query's): **steps**, the steps' own durations summed (a step's is its local "
        + "activity's run time); **in tasks**, the tasks' time outside the steps (the SDK handing each local "
        + "activity to its thread and the result back, running the workflow code, answering the task); "
        + "**between tasks**, from one task's end to the next one's start (the server's round trips: holdLocks "
        + "started and reporting that it renews the leases, its end after the release); **start and end**, "
        + "from the start request to the first task and from the last task to the result. The four add up to "
        + "each switch's total; the p50 of each is taken on its own, so the p50s need not. Direct: the same "
        + "steps called in a row, and its total.\n\n");
    md.append("| migration | rate | total p50 (ms) | steps | in tasks | between tasks | start and end | tasks "
        + "| direct total p50 | direct steps |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Block b : blocks) {
      List<TemporalTimes> times = b.by(TEMPORAL).stream().flatMap(m -> m.times().stream()).toList();
      if (times.isEmpty()) {
        continue;
      }
      List<SwitchMeasurement> d = b.by(DIRECT);
      md.append("| ").append(b.migration().label())
          .append(" | ").append(rate(b.rate()))
          .append(" | ").append(Stats.millis(totals(b.by(TEMPORAL)).p50()))
          .append(" | ").append(p50(times, TemporalTimes::steps))
          .append(" | ").append(p50(times, TemporalTimes::inTasks))
          .append(" | ").append(p50(times, TemporalTimes::betweenTasks))
          .append(" | ").append(p50(times, TemporalTimes::startAndEnd))
          .append(" | ").append(Stats.ofCounts(times.stream().map(t -> (long) t.tasks()).toList()).p50Count())
          .append(" | ").append(d.isEmpty() ? "–" : Stats.millis(totals(d).p50()))
          .append(" | ").append(d.isEmpty() ? "–" : Stats.millis(Stats.ofDurations(d.stream()
              .map(m -> m.run().steps().stream().map(StepTiming::took).reduce(Duration.ZERO, Duration::plus))
              .toList()).p50()))
          .append(" |\n");
    }
    md.append('\n');
  }

  /** Thread families named in each migration's CPU table; the rest are summed as one row. */
  private static final int FAMILIES_SHOWN = 12;

  /**
   * The CPU time a switch takes, by executor: on a machine of few cores the threads of Temporal's
   * machinery (and, in dev mode, its server) take cores that the steps, the load and the servers
   * also need, which wall-clock times alone cannot tell from a busy machine.
   */
  private void cpu(List<Block> blocks) {
    List<Block> measured = blocks.stream()
        .filter(b -> b.switches().stream().anyMatch(m -> m.cpu().isPresent())).toList();
    if (measured.isEmpty()) {
      return;
    }
    md.append("## CPU a switch takes\n\n");
    md.append("The CPU time taken while each switch ran, from its start request to its result (through Temporal, "
        + "before the progress query that reads its steps: a closed workflow's query replays its history): by this "
        + "JVM's threads (the worker, the SDK, the SDK's test server when it is the server, and also the load, the "
        + "router and the stream runner, which run under both executors, for as long as the switch takes), and by "
        + "the sandbox's etcd and MariaDB servers (/proc, in 10 ms ticks; a real Temporal server's CPU is in "
        + "neither). **cores busy** is both over the switch's wall time: how much of the machine the switch and "
        + "everything beside it kept busy. A thread that ended during a switch is not counted.\n\n");
    md.append("| migration | rate | executor | switches | wall p50 (ms) | JVM CPU p50 (ms) | servers CPU p50 (ms) "
        + "| cores busy p50 |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Block b : measured) {
      for (String executor : List.of(TEMPORAL, DIRECT)) {
        List<SwitchMeasurement> ms = b.by(executor).stream().filter(m -> m.cpu().isPresent()).toList();
        if (ms.isEmpty()) {
          continue;
        }
        md.append("| ").append(b.migration().label())
            .append(" | ").append(rate(b.rate()))
            .append(" | ").append(executor)
            .append(" | ").append(ms.size())
            .append(" | ").append(Stats.millis(totals(ms).p50()))
            .append(" | ").append(Stats.millis(Stats.ofDurations(ms.stream().map(m -> m.cpu().get().jvm()).toList()).p50()))
            .append(" | ").append(Stats.millis(Stats.ofDurations(ms.stream().map(m -> m.cpu().get().servers()).toList())
                .p50()))
            .append(" | ").append(format(medianOf(ms.stream().map(m -> (m.cpu().get().jvm().toNanos()
                + m.cpu().get().serversNanos()) / (double) Math.max(1, m.took().toNanos())).toList())))
            .append(" |\n");
      }
    }
    md.append('\n');
    for (Block b : measured) {
      List<SwitchMeasurement> t = b.by(TEMPORAL).stream().filter(m -> m.cpu().isPresent()).toList();
      List<SwitchMeasurement> d = b.by(DIRECT).stream().filter(m -> m.cpu().isPresent()).toList();
      if (t.isEmpty() || d.isEmpty()) {
        continue;
      }
      familyTable(b, meanByFamily(t), meanByFamily(d));
    }
  }

  /** One migration's CPU by thread family, the largest first (Temporal and direct together). */
  private void familyTable(Block b, Map<String, Double> temporal, Map<String, Double> direct) {
    Map<String, Double> both = new LinkedHashMap<>(temporal);
    direct.forEach((f, ms) -> both.merge(f, ms, Double::sum));
    List<String> families = both.keySet().stream()
        .sorted((x, y) -> Double.compare(both.get(y), both.get(x))).toList();
    md.append("**").append(b.migration().label()).append(", ").append(rate(b.rate()))
        .append(" writes/s**: this JVM's CPU a switch takes by thread family, mean ms (numbers in names as #)\n\n");
    md.append("| thread family | Temporal | direct |\n|---|---|---|\n");
    for (String f : families.subList(0, Math.min(FAMILIES_SHOWN, families.size()))) {
      md.append("| `").append(f.replace("|", "\\|").replace("`", "'")).append("` | ")
          .append(format(temporal.getOrDefault(f, 0.0))).append(" | ").append(format(direct.getOrDefault(f, 0.0)))
          .append(" |\n");
    }
    if (families.size() > FAMILIES_SHOWN) {
      List<String> rest = families.subList(FAMILIES_SHOWN, families.size());
      md.append("| ").append(rest.size()).append(" other families | ")
          .append(format(rest.stream().mapToDouble(f -> temporal.getOrDefault(f, 0.0)).sum())).append(" | ")
          .append(format(rest.stream().mapToDouble(f -> direct.getOrDefault(f, 0.0)).sum())).append(" |\n");
    }
    md.append('\n');
  }

  /** Milliseconds of CPU a switch, by thread family, averaged over the switches. */
  private static Map<String, Double> meanByFamily(List<SwitchMeasurement> ms) {
    Map<String, Double> sum = new LinkedHashMap<>();
    ms.forEach(m -> m.cpu().get().families().forEach((f, nanos) -> sum.merge(f, nanos / 1e6, Double::sum)));
    sum.replaceAll((f, total) -> total / ms.size());
    return sum;
  }

  private static double medianOf(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get((sorted.size() - 1) / 2);
  }

  private static String p50(List<TemporalTimes> times, Function<TemporalTimes, Duration> part) {
    return Stats.millis(Stats.ofDurations(times.stream().map(part).toList()).p50());
  }

  /** The median time of each step, Temporal and direct, so it shows where a switch spends its time. */
  private void steps(List<Block> blocks) {
    md.append("## Where a write switch spends its time\n\n");
    md.append("Median step durations (ms) of the switches above (write window and scale), per migration and rate; "
        + "Temporal's come from "
        + "the workflow's progress query (whole milliseconds; the time between steps is not in them).\n\n");
    for (Block b : blocks) {
      Map<String, List<Long>> temporal = stepNanos(b.by(TEMPORAL));
      Map<String, List<Long>> direct = stepNanos(b.by(DIRECT));
      md.append("**").append(b.migration().label()).append(", ").append(rate(b.rate())).append(" writes/s**\n\n")
          .append("| step | Temporal p50 | direct p50 |\n|---|---|---|\n");
      LinkedHashMap<String, Boolean> names = new LinkedHashMap<>();
      temporal.keySet().forEach(n -> names.put(n, true));
      direct.keySet().forEach(n -> names.put(n, true));
      for (String name : names.keySet()) {
        md.append("| ").append(name)
            .append(" | ").append(median(temporal.get(name)))
            .append(" | ").append(median(direct.get(name)))
            .append(" |\n");
      }
      md.append('\n');
    }
  }

  private void scale(List<Block> blocks) {
    md.append("## Scale\n\n");
    md.append("Write switches through Temporal only, forward and back, under the same kind of load. Steps that "
        + "work on every shard run on all shards at once, so W should grow far slower than the shard count.\n\n");
    md.append("| migration | primaries | switches | rate (writes/s) | W p50 / p99 / max (ms) | "
        + "barrier p50 / p99 / max (ms) | total p50 / p99 / max (ms) | E |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Block b : blocks) {
      List<SwitchMeasurement> s = b.by(TEMPORAL);
      md.append("| ").append(b.migration().label())
          .append(" | ").append(b.migration().primaries())
          .append(" | ").append(s.size())
          .append(" | ").append(rate(b.rate()))
          .append(" | ").append(windows(s).summaryMillis())
          .append(" | ").append(barriers(s).map(Stats::summaryMillis).orElse("–"))
          .append(" | ").append(totals(s).summaryMillis())
          .append(" | ").append(s.stream().mapToLong(m -> m.window().errors()).sum())
          .append(" |\n");
    }
    md.append('\n');
  }

  private void history(List<Block> blocks) {
    md.append("## Temporal cost\n\n");
    md.append("What one write switch (`SwitchTraffic` or `ReverseTraffic` with tablet type PRIMARY) leaves in "
        + "Temporal: events in its history, bytes of the history as the server serves it, and bytes of the "
        + "payloads in it (inputs, results, activity arguments and results, markers).\n\n");
    md.append("| migration | runs | events p50 / max | history bytes p50 / max | payload bytes p50 / max |\n");
    md.append("|---|---|---|---|---|\n");
    Map<String, List<HistoryCost>> byLabel = new LinkedHashMap<>();
    for (Block b : blocks) {
      List<HistoryCost> costs = byLabel.computeIfAbsent(b.migration().label(), k -> new ArrayList<>());
      b.by(TEMPORAL).forEach(m -> m.history().ifPresent(costs::add));
    }
    for (var e : byLabel.entrySet()) {
      List<HistoryCost> h = e.getValue();
      if (h.isEmpty()) {
        continue;
      }
      md.append("| ").append(e.getKey())
          .append(" | ").append(h.size())
          .append(" | ").append(countSummary(h, c -> (long) c.events()))
          .append(" | ").append(countSummary(h, HistoryCost::historyBytes))
          .append(" | ").append(countSummary(h, HistoryCost::payloadBytes))
          .append(" |\n");
    }
    md.append('\n');
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void row(String name, String value) {
    md.append("| ").append(name).append(" | ").append(value).append(" |\n");
  }

  static Stats windows(List<SwitchMeasurement> s) {
    return Stats.ofDurations(s.stream().map(m -> m.window().longestAckGap()).toList());
  }

  static Stats totals(List<SwitchMeasurement> s) {
    return Stats.ofDurations(s.stream().map(SwitchMeasurement::took).toList());
  }

  static Optional<Stats> barriers(List<SwitchMeasurement> s) {
    List<Duration> b = s.stream().map(SwitchMeasurement::barrier).flatMap(Optional::stream).toList();
    return b.isEmpty() ? Optional.empty() : Optional.of(Stats.ofDurations(b));
  }

  /** Each step's durations in nanoseconds over the switches given, by step name in the order steps first ran. */
  static Map<String, List<Long>> stepNanos(List<SwitchMeasurement> switches) {
    Map<String, List<Long>> out = new LinkedHashMap<>();
    for (SwitchMeasurement m : switches) {
      for (StepTiming step : m.run().steps()) {
        out.computeIfAbsent(step.name(), k -> new ArrayList<>()).add(step.took().toNanos());
      }
    }
    return out;
  }

  private static String median(List<Long> nanos) {
    return nanos == null || nanos.isEmpty() ? "–" : Stats.millis(Stats.ofNanos(nanos).p50());
  }

  private static String countSummary(List<HistoryCost> h, Function<HistoryCost, Long> value) {
    Stats s = Stats.ofCounts(h.stream().map(value).toList());
    return s.p50Count() + " / " + s.maxCount();
  }

  static double ratio(Duration a, Duration b) {
    return b.isZero() ? Double.NaN : (double) a.toNanos() / b.toNanos();
  }

  static String format(double ratio) {
    return Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f", ratio);
  }

  static String rate(double perSecond) {
    return String.format(Locale.ROOT, "%.0f", perSecond);
  }

  private static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%.1f min", d.toMillis() / 60000.0);
  }
}
