package io.pointsman.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.Direction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The Vitess series' report: besides W per tool, where pointsman's switches spent their time, step by step. */
class VitessReportTest {
  private static final long MS = 1_000_000L;
  private static final Machine MACHINE = new Machine(2, "16 GiB", "Debian", "17", "etcd", "MariaDB", "abc1234");

  @Test
  void listsEachOfPointsmansStepsWithItsMedianAndLongestRunPerRate() {
    VitessSeries.Block block = new VitessSeries.Block(100, 100, List.of(
        vtctld(),
        pointsman(10, 30),
        pointsman(30, 90),
        pointsman(20, 12)), 300, List.of(), List.of());

    String md = render(List.of(block));

    assertThat(md).contains("### Where pointsman's switch spends its time on Vitess");
    assertThat(md).contains("**100 writes/s**");
    // three runs each: stopSourceWrites 10, 30, 20 ms; waitForCatchup 30, 90, 12 ms
    assertThat(md).contains("| stopSourceWrites | 3 | 20 / 30 |");
    assertThat(md).contains("| waitForCatchup | 3 | 30 / 90 |");
    assertThat(md.indexOf("| stopSourceWrites |")).as("in the order the steps first ran")
        .isLessThan(md.indexOf("| waitForCatchup |"));
  }

  @Test
  void aSeriesWithoutPointsmansStepsHasNoSuchSection() {
    VitessSeries.Block block = new VitessSeries.Block(100, 100, List.of(vtctld()), 100, List.of(), List.of());

    assertThat(render(List.of(block))).doesNotContain("spends its time");
  }

  private static String render(List<VitessSeries.Block> blocks) {
    return VitessReport.render("bench --vitess", false, "the SDK's test server", MACHINE,
        Instant.parse("2026-12-07T12:00:00Z"), Duration.ofMinutes(2), blocks);
  }

  /** A switch by vtctldclient, which reports no steps. */
  private static SwitchMeasurement vtctld() {
    return measured(new SwitchRun(VtctldSwitch.EXECUTOR, Direction.FORWARD, 0, 0, 500 * MS, List.of(), "vtctld"));
  }

  /** A pointsman switch whose stopSourceWrites took {@code stopMs} and then waitForCatchup {@code catchupMs}. */
  private static SwitchMeasurement pointsman(long stopMs, long catchupMs) {
    List<StepTiming> steps = new ArrayList<>();
    steps.add(new StepTiming("stopSourceWrites", 0, stopMs * MS));
    steps.add(new StepTiming("waitForCatchup", stopMs * MS, (stopMs + catchupMs) * MS));
    return measured(new SwitchRun(Report.TEMPORAL, Direction.FORWARD, 0, 0, 600 * MS, steps, "wf"));
  }

  private static SwitchMeasurement measured(SwitchRun run) {
    return new SwitchMeasurement(run, new WriteWindow(Duration.ofMillis(100), Duration.ofMillis(100), 0, 10),
        Optional.empty(), Optional.empty(), Optional.empty());
  }
}
