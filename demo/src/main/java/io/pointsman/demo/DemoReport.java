package io.pointsman.demo;

import io.pointsman.sandbox.load.VerificationReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the demo did and saw.
 *
 * @param moved one line: the tables, from where to where
 * @param actions each CLI action in order, with its exit code and wall time
 * @param load what the constant load saw, verified against the data after Complete
 * @param loadDuration how long the load ran
 * @param writeCutovers how many times the worker stopped writes and let them flow again
 * @param meanWriteBarrier the mean time writes were stopped per cut-over, by the worker's metrics
 * @param footprint where the demo ran, so a caller can check nothing is left of it
 */
record DemoReport(
    String moved,
    List<ActionTiming> actions,
    VerificationReport load,
    Duration loadDuration,
    long writeCutovers,
    Duration meanWriteBarrier,
    Footprint footprint) {

  DemoReport {
    actions = List.copyOf(actions);
  }

  /** Every action succeeded and no acknowledged write was lost. */
  boolean succeeded() {
    return actions.stream().allMatch(a -> a.exitCode() == 0) && load.lostNothing();
  }

  /**
   * One CLI action.
   *
   * @param command the command as typed, without the Temporal address
   */
  record ActionTiming(String command, int exitCode, Duration took) {}

  /**
   * @param dataDir the sandbox's data folder (deleted at the end)
   * @param ports every port the demo's servers listened on
   */
  record Footprint(Path dataDir, List<Integer> ports) {
    Footprint {
      ports = List.copyOf(ports);
    }
  }
}
