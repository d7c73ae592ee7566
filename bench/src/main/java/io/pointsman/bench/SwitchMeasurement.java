package io.pointsman.bench;

import io.pointsman.sandbox.load.LoadRecord;
import io.pointsman.api.model.Direction;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One write switch as the benchmark measured it.
 *
 * @param run the switch, its executor and steps
 * @param window what the writers saw while it ran
 * @param history the Temporal history it left; absent when executed directly
 * @param times where its time went by that history; absent when executed directly
 * @param cpu the CPU time this JVM's threads and the sandbox's servers took while it ran; absent
 *     where not measured (real Vitess)
 */
record SwitchMeasurement(SwitchRun run, WriteWindow window, Optional<HistoryCost> history,
    Optional<TemporalTimes> times, Optional<CpuTap.CpuUse> cpu) {
  String executor() {
    return run.executor();
  }

  Direction direction() {
    return run.direction();
  }

  Duration took() {
    return run.took();
  }

  /**
   * How long the executor kept writes from flowing, by its own steps: from the start of
   * {@code stopSourceWrites} to the end of {@code changeRouting}; empty when a step is missing.
   */
  Optional<Duration> barrier() {
    List<StepTiming> steps = run.steps();
    Optional<StepTiming> stop = steps.stream().filter(s -> s.name().equals("stopSourceWrites")).findFirst();
    Optional<StepTiming> route = steps.stream().filter(s -> s.name().equals("changeRouting")).reduce((a, b) -> b);
    if (stop.isEmpty() || route.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofNanos(Math.max(0, route.get().endNanos() - stop.get().startNanos())));
  }

  /** The switches with what the writers saw of each, once every write of the load has been answered. */
  static List<SwitchMeasurement> withWindows(List<SwitchMeasurement> switches, List<LoadRecord> records) {
    return switches.stream().map(m -> new SwitchMeasurement(m.run(),
        WriteWindow.of(records, m.run().startNanos(), m.run().endNanos()), m.history(), m.times(), m.cpu())).toList();
  }
}
