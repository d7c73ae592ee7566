package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Soak: SwitchTraffic and ReverseTraffic back and forth, N cycles, under constant write load, with
 * the topology validator as the oracle after every action and the load verifier at the end. The
 * build runs {@value #BUILD_CYCLES} cycles; {@code ./scripts/soak.sh N} runs it alone with N
 * cycles (it sets {@code -Dpointsman.soakCycles}).
 */
@Timeout(4 * 3600)
class SwitchSoakTest {
  private static final Logger log = LoggerFactory.getLogger(SwitchSoakTest.class);
  private static final String WF = "commerce2customer";
  private static final String TARGET = "customer";
  /** The full count: a cycle takes about 1.5 s here, so the build affords all of it. */
  static final int BUILD_CYCLES = 50;

  @Test
  void switchingBackAndForthLeavesADefinedStateAfterEveryActionAndLosesNoWrite() throws Exception {
    int cycles = Integer.getInteger("pointsman.soakCycles", BUILD_CYCLES);
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      TopologyValidator validator = world.validator;
      world.createMoveTables();
      LoadWriter load = LoadWriter.start(world.router(), LoadOptions.builder()
          .ratePerSecond(20).writers(2).duration(Duration.ofHours(4))
          .writes(WriteFactory.customerInserts(TARGET, 1_000_000)).build());
      world.onClose(load);
      SwitchTrafficRequest request = SwitchTrafficRequest.of(WF, TARGET);
      List<Long> switchMillis = new ArrayList<>();
      List<Long> reverseMillis = new ArrayList<>();
      for (int cycle = 1; cycle <= cycles; cycle++) {
        long t0 = System.nanoTime();
        world.workflow(SwitchTrafficWorkflow.class, Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, TARGET, WF)
            + "-" + UUID.randomUUID()).switchTraffic(request);
        switchMillis.add((System.nanoTime() - t0) / 1_000_000);
        valid(validator, "ALL_SWITCHED", cycle);
        long t1 = System.nanoTime();
        world.workflow(ReverseTrafficWorkflow.class, Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, TARGET, WF)
            + "-" + UUID.randomUUID()).reverseTraffic(request);
        reverseMillis.add((System.nanoTime() - t1) / 1_000_000);
        valid(validator, "NOT_SWITCHED", cycle);
        log.info("soak cycle {}/{}: switch {} ms, reverse {} ms", cycle, cycles, switchMillis.get(cycle - 1),
            reverseMillis.get(cycle - 1));
      }
      // at 20 writes/s, a floor of 10 a cycle: the load ran across every cycle, not just past the last
      long floor = 10L * cycles;
      await().atMost(Duration.ofMinutes(2)).until(() -> load.loadLog().acknowledged() >= floor);
      load.close();
      VerificationReport report = LoadVerifier.forCustomers(world.router()).verify(load.loadLog());
      log.info("soak of {} cycles: switch ms {}, reverse ms {}; load: {}", cycles, switchMillis, reverseMillis,
          report.summary());
      assertThat((long) report.acknowledged()).as(report.summary()).isGreaterThanOrEqualTo(floor);
      assertThat(report.errors()).as("every write buffered across the switches, none failed: " + report.summary())
          .isEmpty();
      assertThat(report.missing()).as(report.summary()).isEmpty();
      assertThat(report.duplicated()).as(report.summary()).isEmpty();
      assertThat(report.lostNothing()).as(report.summary()).isTrue();
    }
  }

  private static void valid(TopologyValidator validator, String state, int cycle) {
    ValidationReport report = validator.validate(TARGET, WF);
    assertThat(report.violations()).as("cycle " + cycle + ": " + report.describe()).isEmpty();
    assertThat(report.state()).as("cycle " + cycle).isEqualTo(state);
  }
}
