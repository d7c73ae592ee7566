package io.pointsman.bench;

import io.pointsman.api.model.Direction;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.load.LoadLog;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadRecord;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Write switches of one migration on one bench world, back and forth under constant-rate writers
 * through the router: each cycle switches writes to the target and back through Temporal (the
 * {@code SwitchTraffic} and {@code ReverseTraffic} workflows on the dev-mode worker) and, when
 * asked, the same again executed directly ({@link DirectSwitch}), so both are measured in the same
 * run, on the same data, under the same load.
 */
final class SwitchSeries {
  static final Duration LOCK_TTL = Duration.ofMinutes(2);
  /** Load between two switches, so each switch starts with the router settled on the last one's topology. */
  private static final Duration SETTLE = Duration.ofSeconds(1);
  /** Writes the load runs for at most; it is stopped when the block ends. */
  private static final Duration LOAD_LIMIT = Duration.ofHours(2);
  /**
   * Unmeasured cycles through each executor before the first block. One was not enough: in runs
   * that put 500 writes/s before 100, the first block's Temporal W p50 was still the highest of the
   * run whichever rate it had, and its Temporal/direct ratio the worst (the SDK, its test server and
   * the worker have far more code to compile than the direct path).
   */
  static final int WARM_UP_CYCLES = 5;

  private final BenchWorld world;
  private final BenchMigration migration;
  private final TemporalSwitch temporal;
  private final DirectSwitch direct;
  private final CpuTap cpu;

  SwitchSeries(BenchWorld world, BenchMigration migration) {
    this.world = world;
    this.migration = migration;
    this.temporal = new TemporalSwitch(world.client());
    this.direct = new DirectSwitch(world.services);
    this.cpu = new CpuTap(world.sandbox.serverPids());
  }

  /** Creates the workflow, waits for its copy, and switches reads through Temporal, so that only writes move. */
  void prepare() {
    CreatedWorkflow created = migration.create().apply(world.sandbox);
    world.awaitCopied(created);
    world.client().newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
            .setTaskQueue(Pointsman.TASK_QUEUE)
            .setWorkflowId("bench-reads-" + migration.workflow())
            .build())
        .switchTraffic(SwitchTrafficRequest.of(migration.workflow(), migration.targetKeyspace())
            .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
    warmUp();
  }

  /**
   * {@link #WARM_UP_CYCLES} cycles through both executors, not measured and without load: the first
   * switches in a JVM pay for class loading and JIT compilation, which a long-running worker has
   * paid long before an operator's switch, and with few switches a block's p99 is its largest.
   */
  private void warmUp() {
    for (int i = 0; i < WARM_UP_CYCLES; i++) {
      for (Direction d : Direction.values()) {
        temporal.switchWrites(migration.targetKeyspace(), migration.workflow(), d, LOCK_TTL);
      }
      for (Direction d : Direction.values()) {
        direct.switchWrites(migration.targetKeyspace(), migration.workflow(), d, LOCK_TTL);
      }
    }
  }

  /**
   * Runs {@code cycles} cycles under writes at {@code rate} per second; each cycle is a Temporal
   * switch forward and back, then, with {@code alsoDirect}, a direct one forward and back.
   *
   * @param firstKey the first customer_id the load writes; each block needs keys of its own
   */
  Block measure(double rate, int cycles, boolean alsoDirect, long firstKey) throws InterruptedException {
    List<SwitchMeasurement> switches = new ArrayList<>();
    LoadWriter load = LoadWriter.start(world.router, LoadOptions.builder()
        .ratePerSecond(rate)
        .writers(writersFor(rate))
        .duration(LOAD_LIMIT)
        .writes(WriteFactory.customerInserts(migration.loadTable(), firstKey))
        .build());
    long blockStart = System.nanoTime();
    long blockEnd;
    try {
      Thread.sleep(SETTLE.toMillis());
      for (int i = 0; i < cycles; i++) {
        for (Direction d : Direction.values()) {
          switches.add(measureOne(true, d));
        }
        if (alsoDirect) {
          for (Direction d : Direction.values()) {
            switches.add(measureOne(false, d));
          }
        }
      }
    } finally {
      blockEnd = System.nanoTime();
      load.close();
    }
    List<LoadRecord> records = load.loadLog().records();
    List<SwitchMeasurement> measured = SwitchMeasurement.withWindows(switches, records);
    // every acknowledged write read back where the topology serves it now, once
    VerificationReport verified = new LoadVerifier(world.router, migration.loadTable(), "customer_id",
        TabletType.PRIMARY).verify(load.loadLog());
    return new Block(migration, rate, achievedRate(load.loadLog(), blockStart, blockEnd), measured, verified);
  }

  private SwitchMeasurement measureOne(boolean viaTemporal, Direction direction)
      throws InterruptedException {
    CpuTap.Snapshot before = cpu.take();
    AtomicReference<CpuTap.Snapshot> after = new AtomicReference<>();
    SwitchRun run = viaTemporal
        ? temporal.switchWrites(migration.targetKeyspace(), migration.workflow(), direction, LOCK_TTL,
            () -> after.set(cpu.take()))
        : direct.switchWrites(migration.targetKeyspace(), migration.workflow(), direction, LOCK_TTL);
    if (after.get() == null) {
      after.set(cpu.take());
    }
    Optional<CpuTap.CpuUse> used = cpu.supported() ? Optional.of(CpuTap.between(before, after.get()))
        : Optional.empty();
    Optional<HistoryCost> history = Optional.empty();
    Optional<TemporalTimes> times = Optional.empty();
    if (viaTemporal) {
      WorkflowExecutionHistory h = world.client().fetchHistory(run.workflowId());
      history = Optional.of(HistoryCost.of(h));
      times = Optional.of(TemporalTimes.of(h.getEvents(), run));
    }
    Thread.sleep(SETTLE.toMillis());
    // the window is computed once the block's load has ended, when every write of it has been answered
    return new SwitchMeasurement(run, null, history, times, used);
  }

  /** Enough writers that a second of buffering does not leave the schedule without a free writer. */
  private static int writersFor(double rate) {
    return (int) Math.min(1000, Math.max(16, Math.ceil(rate * 1.5)));
  }

  private static double achievedRate(LoadLog log, long from, long to) {
    long acks = log.records().stream().filter(r -> r.acknowledged() && r.ackNanos() >= from && r.ackNanos() <= to)
        .count();
    return acks / ((to - from) / 1e9);
  }

  /**
   * The switches of one migration at one rate.
   *
   * @param achievedRate acknowledged writes per second over the whole block
   * @param load the block's writes read back after it: lost or duplicated acknowledged writes
   */
  record Block(BenchMigration migration, double rate, double achievedRate, List<SwitchMeasurement> switches,
      VerificationReport load) {
    List<SwitchMeasurement> by(String executor) {
      return switches.stream().filter(s -> s.executor().equals(executor)).toList();
    }
  }
}
