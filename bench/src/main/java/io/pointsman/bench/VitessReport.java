package io.pointsman.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;

/** The markdown of {@link VitessSeries}: the section "pointsman vs vtctldclient on Vitess 24". */
final class VitessReport {
  private VitessReport() {}

  static String render(String command, boolean barrierBehindTablets, String temporal, Machine m, Instant started,
      Duration took, List<VitessSeries.Block> blocks) {
    String ours = barrierBehindTablets ? "pointsman + MySQL barrier" : "pointsman";
    StringBuilder md = new StringBuilder();
    md.append("## pointsman vs vtctldclient on Vitess 24\n\n");
    md.append("`").append(command).append("`, started ").append(started.truncatedTo(ChronoUnit.SECONDS))
        .append(", took ").append(String.format(Locale.ROOT, "%.1f min", took.toSeconds() / 60.0)).append(", ")
        .append(m.cores()).append(" cores, commit ").append(m.commit()).append(".\n\n");
    md.append("One real cluster (vtctld, vtgate with `--enable-buffer`, one vttablet on MariaDB 10.11 per shard), ")
        .append("the MoveTables `commerce2customer` created by vtctldclient and copied by VReplication, reads ")
        .append("switched first. Each cycle: vtctldclient `SwitchTraffic --tablet-types PRIMARY` and `ReverseTraffic`, ")
        .append("then pointsman's `SwitchTraffic` and `ReverseTraffic` of PRIMARY (dev-mode worker, tablet RPCs; ")
        .append("Temporal: ").append(temporal).append("), ")
        .append("under constant inserts through vtgate. W: the longest gap between acknowledged writes overlapping ")
        .append("a switch; B: the longest write in flight during it (held in vtgate's buffer, then acknowledged); ")
        .append("E: writes in flight during it that failed; total: the command's or workflow's own time.\n\n");
    md.append("| rate asked / achieved (writes/s) | executor | switches | W p50 / p99 / max (ms) | B p99 / max (ms) | E ")
        .append("| total p50 / p99 / max (ms) |\n|---|---|---|---|---|---|---|\n");
    for (VitessSeries.Block b : blocks) {
      for (String executor : List.of(VtctldSwitch.EXECUTOR, Report.TEMPORAL)) {
        List<SwitchMeasurement> s = b.by(executor);
        if (s.isEmpty()) {
          continue;
        }
        Stats w = Stats.ofDurations(s.stream().map(x -> x.window().longestAckGap()).toList());
        Stats bb = Stats.ofDurations(s.stream().map(x -> x.window().longestWrite()).toList());
        Stats total = Stats.ofDurations(s.stream().map(SwitchMeasurement::took).toList());
        long errors = s.stream().mapToLong(x -> x.window().errors()).sum();
        md.append(String.format(Locale.ROOT, "| %.0f / %.0f | %s | %d | %s | %s / %s | %d | %s |%n", b.rate(),
            b.achievedRate(), executor.equals(Report.TEMPORAL) ? ours : executor, s.size(), w.summaryMillis(),
            Stats.millis(bb.p99()), Stats.millis(bb.max()), errors, total.summaryMillis()));
      }
    }
    md.append('\n');
    for (VitessSeries.Block b : blocks) {
      Optional<String> verdict = verdict(b);
      md.append(String.format(Locale.ROOT, "- %.0f writes/s: %d writes acknowledged, %d lost, %d duplicated; %s%n",
          b.rate(), b.acknowledged(), b.lost().size(), b.duplicated().size(), verdict.orElse("no pointsman switch")));
    }
    steps(md, ours, blocks);
    return md.toString();
  }

  /**
   * Each of pointsman's steps, median and longest, per rate: where a switch on Vitess spends its
   * time (most steps are tablet calls in a row), so that a change to one step can be read there.
   */
  private static void steps(StringBuilder md, String ours, List<VitessSeries.Block> blocks) {
    List<Map<String, List<Long>>> byBlock = blocks.stream().map(b -> Report.stepNanos(b.by(Report.TEMPORAL))).toList();
    if (byBlock.stream().allMatch(Map::isEmpty)) {
      return;
    }
    md.append("\n### Where ").append(ours).append("'s switch spends its time on Vitess\n\n")
        .append("Each step of its switches above, in the order they first ran, from the workflow's progress query ")
        .append("(whole milliseconds); a step that runs more than once in a switch counts each time. ")
        .append("vtctldclient reports no steps.\n\n");
    for (int i = 0; i < blocks.size(); i++) {
      Map<String, List<Long>> byStep = byBlock.get(i);
      if (byStep.isEmpty()) {
        continue;
      }
      md.append("**").append(Report.rate(blocks.get(i).rate())).append(" writes/s**\n\n")
          .append("| step | runs | p50 / max (ms) |\n|---|---|---|\n");
      byStep.forEach((name, nanos) -> {
        Stats st = Stats.ofNanos(nanos);
        md.append("| ").append(name).append(" | ").append(nanos.size()).append(" | ")
            .append(Stats.millis(st.p50())).append(" / ").append(Stats.millis(st.max())).append(" |\n");
      });
      md.append('\n');
    }
  }

  /** Whether pointsman's p99 W is no worse than vtctldclient's, with no failed write. */
  private static Optional<String> verdict(VitessSeries.Block b) {
    List<SwitchMeasurement> ours = b.by(Report.TEMPORAL);
    List<SwitchMeasurement> theirs = b.by(VtctldSwitch.EXECUTOR);
    if (ours.isEmpty() || theirs.isEmpty()) {
      return Optional.empty();
    }
    Duration p99Ours = Stats.ofDurations(ours.stream().map(x -> x.window().longestAckGap()).toList()).p99();
    Duration p99Theirs = Stats.ofDurations(theirs.stream().map(x -> x.window().longestAckGap()).toList()).p99();
    long errors = ours.stream().mapToLong(x -> x.window().errors()).sum();
    boolean met = p99Ours.compareTo(p99Theirs) <= 0 && errors == 0;
    return Optional.of("pointsman p99 W " + Stats.millis(p99Ours) + " ms vs vtctldclient " + Stats.millis(p99Theirs)
        + " ms, E " + errors + ": target (p99 W no worse, E = 0) " + (met ? "met" : "**not met**"));
  }
}
