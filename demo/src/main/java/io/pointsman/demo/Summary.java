package io.pointsman.demo;

import io.pointsman.api.request.GoDurations;
import io.pointsman.sandbox.load.VerificationReport;
import java.io.PrintStream;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** The demo's last words: what moved, how long each action took, what the load saw. */
final class Summary {
  private Summary() {}

  static void print(PrintStream out, DemoReport report, double loadRate) {
    VerificationReport load = report.load();
    out.println();
    out.println("== Summary");
    out.println("What moved:  " + report.moved());
    out.println("Actions (pointsman CLI, start to result):");
    for (DemoReport.ActionTiming a : report.actions()) {
      out.println(String.format(Locale.ROOT, "  %-44s %8s  %s", a.command(), ms(a.took()),
          a.exitCode() == 0 ? "ok" : "FAILED (exit " + a.exitCode() + ")"));
    }
    if (report.writeCutovers() > 0) {
      out.println(String.format(Locale.ROOT, "Writes stopped by the worker: %d times (stopSourceWrites to "
          + "changeRouting), %s on average", report.writeCutovers(), ms(report.meanWriteBarrier())));
    }
    out.println(String.format(Locale.ROOT, "Load:        %.0f inserts/s for %s: %d sent, %d acknowledged, %d failed",
        loadRate, ms(report.loadDuration()), load.attempted(), load.acknowledged(), load.errors().size()));
    out.println("Longest write gap seen by the load: " + ms(load.longestGapBetweenAcks())
        + " (latency p50 " + ms(load.p50Latency()) + ", p99 " + ms(load.p99Latency()) + ", max "
        + ms(load.maxLatency()) + ")");
    if (load.lostNothing()) {
      out.println("Acknowledged writes lost: 0 (each of the " + load.acknowledged()
          + " acknowledged writes is in keyspace customer exactly once)");
    } else {
      out.println("Acknowledged writes lost: " + load.missing().size() + ", duplicated: " + load.duplicated().size()
          + " -- " + load.summary());
    }
    out.println(report.succeeded() ? "Demo OK" : "DEMO FAILED");
    out.flush();
  }

  private static String ms(Duration d) {
    return GoDurations.format(d.truncatedTo(ChronoUnit.MILLIS));
  }
}
