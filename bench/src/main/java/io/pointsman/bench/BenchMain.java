package io.pointsman.bench;

import io.pointsman.api.request.GoDurations;
import io.pointsman.sandbox.cluster.Folders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar bench/target/pointsman-bench-*.jar}: runs the benchmarks on sandboxes of their
 * own and writes BENCHMARKS.md. Exit code 0 when the report was written, 1 when a benchmark
 * failed, 2 on a bad option.
 */
@Command(name = "pointsman-bench", mixinStandardHelpOptions = true,
    description = {"Benchmarks pointsman on the sandbox: the write-unavailability window of MoveTables and Reshard "
        + "write switches through Temporal and executed directly, lock latency and renewal, scale in shards and "
        + "tables, the Temporal history a switch costs, and the stream runner's lag under load. Needs etcd and mariadbd on the PATH "
        + "(scripts/bench.sh installs them). Writes a Markdown report."})
public final class BenchMain implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "FILE", defaultValue = "BENCHMARKS.md",
      description = "Where the report goes (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--smoke", description = "A few minutes of every benchmark with too few samples to publish "
      + "(what CI runs); the options below override it.")
  boolean smoke;

  @Option(names = "--cycles", paramLabel = "N", description = "Write-window cycles per migration and rate; each "
      + "is two switches through Temporal and two direct (full: 10).")
  Integer cycles;

  @Option(names = "--rates", paramLabel = "WRITES_PER_SECOND", split = ",",
      description = "Load rates of the write-window runs (full: 100,500,1000).")
  List<Double> rates;

  @Option(names = "--scale-shards", paramLabel = "N", split = ",",
      description = "Reshard scale points: one shard split into N (full: 2,4,8,16; 'none' skips them).")
  List<String> scaleShards;

  @Option(names = "--scale-tables", paramLabel = "N", split = ",",
      description = "MoveTables scale points in tables (full: 10,100,1000; 'none' skips them).")
  List<String> scaleTables;

  @Option(names = "--scale-cycles", paramLabel = "N", description = "Switches forward and back per scale point (full: 5).")
  Integer scaleCycles;

  @Option(names = "--lag-rates", paramLabel = "WRITES_PER_SECOND", split = ",",
      description = "Rates of the stream runner's lag runs, inserting straight into the source (full: 1000,2000; "
          + "'none' skips them).")
  List<String> lagRates;

  @Option(names = "--barrier-cost-rounds", paramLabel = "N", description = "Rounds of inserts without and with a "
      + "dormant write barrier, to measure what it costs a write (full: 3; 0 skips it).")
  Integer barrierCostRounds;

  @Option(names = "--local-activity-calls", paramLabel = "N", description = "Calls of a local activity that "
      + "only waits, per wait, timed for the SDK's share (full: 500; 0 skips them).")
  Integer localActivityCalls;

  @Option(names = "--lock-samples", paramLabel = "N", description = "Lock acquisitions timed (full: 200).")
  Integer lockSamples;

  @Option(names = "--renew-locks", paramLabel = "N", description = "Locks kept alive at once (full: 100).")
  Integer renewLocks;

  @Option(names = "--vitess", description = "Only the anchor series on a real Vitess 24 cluster: vtctldclient and "
      + "pointsman switching the same MoveTables' writes, alternating (needs the cluster ./scripts/bench.sh --vitess "
      + "starts); --rates (default 100,500) and --cycles (default 10) apply.")
  boolean vitess;

  @Option(names = "--tablet-write-barrier", description = "With --vitess: pointsman also raises its MySQL barrier "
      + "behind vttablet's wall (POINTSMAN_TABLET_WRITE_BARRIER), to measure the second wall.")
  boolean tabletWriteBarrier;

  @Option(names = "--temporal-server", paramLabel = "TEMPORAL_CLI", description = "Run each world on the real "
      + "Temporal dev server of this Temporal CLI (server start-dev, default settings, its database in the world's "
      + "folder) instead of the SDK's test server in the bench's JVM.")
  Path temporalServer;

  @Option(names = "--renew-for", paramLabel = "DURATION", description = "How long they are kept, e.g. 10m (full: 10m).")
  String renewFor;

  @Override
  public Integer call() throws Exception {
    String command = "java -jar bench/target/pointsman-bench-*.jar " + String.join(" ", originalArgs);
    if (vitess) {
      return vitess(command.trim());
    }
    BenchPlan plan = plan();
    checkTemporalServer();
    Bench bench = new Bench(plan, line -> System.out.println("bench: " + line), Optional.ofNullable(temporalServer));
    String report = bench.run().report(command.trim(), Machine.describe());
    Files.writeString(out, report, StandardCharsets.UTF_8);
    System.out.println(report);
    System.out.println("bench: report written to " + out.toAbsolutePath());
    return 0;
  }

  private List<String> originalArgs = List.of();

  private int vitess(String command) throws Exception {
    List<Double> vitessRates = rates != null ? rates : List.of(100.0, 500.0);
    int vitessCycles = cycles != null ? cycles : 10;
    if (vitessCycles < 1) {
      throw new IllegalArgumentException("--cycles must be at least 1, was " + vitessCycles);
    }
    checkTemporalServer();
    java.time.Instant started = java.time.Instant.now();
    List<VitessSeries.Block> blocks = new java.util.ArrayList<>();
    Path temporalDir = Files.createTempDirectory("pointsman-bench-temporal");
    try (VitessSeries series = new VitessSeries(VitessSeries.Cluster.fromEnv(System.getenv()), tabletWriteBarrier,
        Optional.ofNullable(temporalServer), temporalDir, line -> System.out.println("bench: " + line))) {
      series.prepare();
      long firstKey = 10_000_000;
      for (double rate : vitessRates) {
        blocks.add(series.measure(rate, vitessCycles, firstKey));
        firstKey += 10_000_000;
      }
    } finally {
      Folders.deleteTree(temporalDir); // the dev server's database is of no use after the run
    }
    String report = VitessReport.render(command, tabletWriteBarrier,
        BenchWorld.describeTemporal(Optional.ofNullable(temporalServer)), Machine.describe(), started,
        java.time.Duration.between(started, java.time.Instant.now()), blocks);
    Files.writeString(out, report, StandardCharsets.UTF_8);
    System.out.println(report);
    System.out.println("bench: report written to " + out.toAbsolutePath());
    return 0;
  }

  private void checkTemporalServer() {
    if (temporalServer != null && !Files.isExecutable(temporalServer)) {
      throw new IllegalArgumentException("--temporal-server " + temporalServer + " is not an executable file");
    }
  }

  BenchPlan plan() {
    BenchPlan base = smoke ? BenchPlan.smoke() : BenchPlan.full();
    LockBench.Options locks = base.locks();
    Duration renewal = locks.renewFor();
    if (renewFor != null) {
      renewal = GoDurations.parseOrNull(renewFor);
      if (renewal == null || renewal.isNegative() || renewal.isZero()) {
        throw new IllegalArgumentException("--renew-for must be a positive duration such as 10m or 30s, was '"
            + renewFor + "'");
      }
    }
    locks = new LockBench.Options(or(lockSamples, locks.samples()), or(renewLocks, locks.renewLocks()),
        locks.renewTtl(), renewal);
    return new BenchPlan(or(cycles, base.cycles()), rates != null ? rates : base.rates(),
        points(scaleShards, base.scaleShards(), "--scale-shards"), points(scaleTables, base.scaleTables(),
        "--scale-tables"), or(scaleCycles, base.scaleCycles()), base.scaleRate(), locks,
        points(lagRates, base.lagRates().stream().map(Double::intValue).toList(), "--lag-rates").stream()
            .map(Integer::doubleValue).toList(), base.lagDuration(), or(barrierCostRounds, base.costRounds()),
        base.costRound(), or(localActivityCalls, base.localActivityCalls()));
  }

  private static int or(Integer given, int otherwise) {
    return given != null ? given : otherwise;
  }

  private static List<Integer> points(List<String> given, List<Integer> otherwise, String flag) {
    if (given == null) {
      return otherwise;
    }
    if (given.size() == 1 && given.get(0).equals("none")) {
      return List.of();
    }
    try {
      return given.stream().map(String::trim).map(Integer::parseInt).toList();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " takes whole numbers separated by commas, or none; was "
          + String.join(",", given));
    }
  }

  /** Runs the command line; returns the exit code. */
  static int run(String... args) {
    BenchMain main = new BenchMain();
    main.originalArgs = List.of(args);
    CommandLine cli = new CommandLine(main);
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      if (e instanceof IllegalArgumentException) {
        commandLine.getErr().println("pointsman-bench: " + e.getMessage());
        return 2;
      }
      commandLine.getErr().println("pointsman-bench: failed: " + e);
      e.printStackTrace(commandLine.getErr());
      return 1;
    });
    return cli.execute(args);
  }

  public static void main(String[] args) throws IOException {
    System.exit(run(args));
  }
}
