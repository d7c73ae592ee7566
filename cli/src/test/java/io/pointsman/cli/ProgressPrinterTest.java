package io.pointsman.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {
  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
  private final StringWriter text = new StringWriter();
  private final ProgressPrinter printer = new ProgressPrinter(new PrintWriter(text));

  private static Progress acquiring(String detail) {
    return new Progress("SwitchTraffic", "locking",
        List.of(new StepProgress("acquireLocks", StepStatus.RUNNING, T0, null, detail)), List.of(), List.of());
  }

  /** A wait behind another holder is printed when acquireLocks reports it, once. */
  @Test
  void aRunningStepWhoseDetailChangesIsPrintedAgainNamingWhatItWaitsFor() {
    printer.show(acquiring("named lock customer/commerce2customer, keyspaces [commerce, customer]"));
    String holder = "waiting for the lock on keyspace commerce, held by SetKeyspaceDurabilityPolicy on vtctld-0"
        + " as vitess since 2026-12-03T09:59:58Z (/vitess/global/keyspaces/commerce/locks/7587)";
    printer.show(acquiring(holder));
    printer.show(acquiring(holder));

    List<String> lines = text.toString().lines().filter(l -> l.contains("acquireLocks")).toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).contains("start").contains("named lock customer/commerce2customer");
    assertThat(lines.get(1)).contains("waiting").contains("held by SetKeyspaceDurabilityPolicy on vtctld-0");
  }
}
