package io.pointsman.demo;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.Timer;
import io.pointsman.api.request.GoDurations;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadVerifier;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VerificationReport;
import io.pointsman.sandbox.load.WriteFactory;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.stack.OpenedParts;
import java.io.PrintStream;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The demo, README's first command: a Vitess-shaped sandbox (etcd and three MariaDB primaries),
 * Temporal in dev mode with a pointsman worker, the MoveTables workflow {@code commerce2customer}
 * under constant write load through the router, switched with the CLI (reads, then writes, back,
 * forward again, Complete), and a summary of what moved, how long each action took, the longest
 * write gap the load saw and whether any acknowledged write was lost. Everything it started is
 * stopped and its data deleted at the end, also on failure or Ctrl-C.
 */
public final class Demo {
  private static final List<List<String>> ACTIONS = List.of(
      List.of("SwitchTraffic", "--tablet-types", "REPLICA,RDONLY"),
      List.of("SwitchTraffic", "--tablet-types", "PRIMARY"),
      List.of("ReverseTraffic"),
      List.of("SwitchTraffic"),
      List.of("Complete"));
  static final int DEFAULT_TEMPORAL_PORT = 7233;
  private static final Duration POLL = Duration.ofMillis(200);
  /** Longer than the router buffers a denied write: after that, writes that do not flow are a failure. */
  private static final Duration WRITES_FLOW_TIMEOUT = Duration.ofSeconds(60);
  /** The first key the load inserts; the sample rows use small keys. */
  private static final long FIRST_LOAD_KEY = 1_000_000;

  private Demo() {}

  public static void main(String[] args) {
    DemoCommand command = new DemoCommand();
    CommandLine cli = new CommandLine(command);
    int parsed = cli.execute(args);
    if (parsed != 0 || command.helpRequested()) {
      System.exit(parsed);
    }
    quietLogs();
    if (command.playground()) {
      playground(command.temporalPort());
      return;
    }
    try {
      DemoReport report = run(command.options());
      System.exit(report.succeeded() ? 0 : 1);
    } catch (RuntimeException e) {
      System.out.println();
      System.out.println("DEMO FAILED: " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * Runs the demo to the end and stops everything it started.
   *
   * @throws IllegalStateException when a step does not happen (the message says which); everything
   *     started is stopped before it is thrown
   */
  static DemoReport run(DemoOptions options) {
    PrintStream out = options.out();
    OpenedParts teardown = new OpenedParts();
    Thread hook = new Thread(() -> {
      out.println();
      out.println("Interrupted: stopping everything the demo started");
      teardown.closeAll("everything the demo started");
    }, "pointsman-demo-teardown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return new Run(options, teardown).go();
    } finally {
      out.println();
      out.println("== Stopping everything the demo started");
      teardown.closeAll("everything the demo started");
      out.println("   done: no server of the demo is running and its data folder is deleted");
      out.flush();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException exiting) {
        // the JVM is already stopping; the hook finds the teardown done
      }
    }
  }

  /**
   * The demo's world without the demo: sandbox, stream runner, dev mode and the copied MoveTables
   * workflow, left running for the CLI in another terminal until Ctrl-C.
   */
  static void playground(int temporalPort) {
    OpenedParts teardown = new OpenedParts();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println();
      System.out.println("Stopping the playground");
      try {
        teardown.closeAll("everything the demo started");
      } finally {
        stopped.countDown();
      }
    }, "pointsman-playground-teardown"));
    Narrator narrator = new Narrator(System.out);
    Playground world;
    try {
      world = Playground.start(teardown, narrator, temporalPort);
    } catch (RuntimeException e) {
      System.out.println("PLAYGROUND FAILED: " + e.getMessage());
      System.exit(1);
      return;
    }
    String cli = "java -jar cli/target/pointsman-cli-*.jar"
        + (temporalPort == DEFAULT_TEMPORAL_PORT ? "" : " --temporal-address " + world.dev.address());
    narrator.step("Ready. In another terminal, from the repository:");
    narrator.say(cli + " MoveTables --workflow " + Playground.WORKFLOW + " --target-keyspace "
        + Playground.TARGET_KEYSPACE + " SwitchTraffic --dry-run");
    narrator.say(cli + " MoveTables --workflow " + Playground.WORKFLOW + " --target-keyspace "
        + Playground.TARGET_KEYSPACE + " SwitchTraffic --tablet-types REPLICA,RDONLY");
    narrator.say(cli + " MoveTables --workflow " + Playground.WORKFLOW + " --target-keyspace "
        + Playground.TARGET_KEYSPACE + " Status");
    narrator.say("Ctrl-C here stops everything and deletes the data.");
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One run of the demo. */
  private static final class Run {
    private final DemoOptions options;
    private final OpenedParts teardown;
    private final Narrator narrator;

    Run(DemoOptions options, OpenedParts teardown) {
      this.options = options;
      this.teardown = teardown;
      this.narrator = new Narrator(options.out());
    }

    DemoReport go() {
      Playground world = Playground.start(teardown, narrator, LoopbackPorts.freePort());
      narrator.say(world.moved());

      narrator.step(String.format(Locale.ROOT, "Constant load: %.0f inserts/s into customer through the router "
          + "(vtgate's stand-in), from now until after Complete", options.loadRate()));
      Router router = world.router();
      awaitTopology(router);
      LoadWriter load = teardown.add("the load", LoadWriter.start(router, LoadOptions.builder()
          .ratePerSecond(options.loadRate())
          .writers(options.loadWriters())
          .duration(Duration.ofHours(1))
          .writes(WriteFactory.customerInserts("customer", FIRST_LOAD_KEY))
          .build()));
      long loadStart = System.nanoTime();
      awaitWritesFlow(load, "before the first switch");

      InProcessCli cli = new InProcessCli(world.dev.address(), narrator.out());
      narrator.say("the commands below are the pointsman CLI, run with --temporal-address " + world.dev.address());
      List<DemoReport.ActionTiming> timings = new ArrayList<>();
      for (List<String> action : ACTIONS) {
        DemoReport.ActionTiming t = command(cli, action);
        timings.add(t);
        if (t.exitCode() != 0) {
          throw new IllegalStateException("'pointsman ... " + t.command() + "' exited with " + t.exitCode());
        }
        awaitWritesFlow(load, "after " + t.command());
      }
      command(cli, List.of("Status"));
      validate(cli);

      narrator.step("Stopping the load and checking every acknowledged write against the data");
      load.close();
      Duration loadDuration = Duration.ofNanos(System.nanoTime() - loadStart);
      VerificationReport verified = LoadVerifier.forCustomers(router).verify(load.loadLog());
      narrator.say(verified.summary());

      Timer barrier = world.dev.worker().registry().find("pointsman.write.barrier.duration")
          .tag("outcome", "switched").timer();
      DemoReport report = new DemoReport(world.moved(), timings, verified, loadDuration,
          barrier == null ? 0 : barrier.count(),
          barrier == null || barrier.count() == 0 ? Duration.ZERO
              : Duration.ofNanos((long) barrier.mean(TimeUnit.NANOSECONDS)),
          new DemoReport.Footprint(world.dataDir, world.ports));
      Summary.print(narrator.out(), report, options.loadRate());
      return report;
    }

    /** What Complete left must be a defined state too: no stream, rule, barrier or lock of the workflow. */
    private void validate(InProcessCli cli) {
      List<String> typed = List.of("Validate", "--workflow", Playground.WORKFLOW, "--target-keyspace",
          Playground.TARGET_KEYSPACE);
      narrator.step("$ pointsman " + String.join(" ", typed));
      DemoReport.ActionTiming t = cli.run(typed);
      if (t.exitCode() != 0) {
        throw new IllegalStateException("'pointsman Validate' exited with " + t.exitCode()
            + ": the topology is not in a state of the workflow");
      }
    }

    /** Runs one CLI command, shown first as a user would type it. */
    private DemoReport.ActionTiming command(InProcessCli cli, List<String> action) {
      List<String> typed = new ArrayList<>(List.of("MoveTables", "--workflow", Playground.WORKFLOW,
          "--target-keyspace", Playground.TARGET_KEYSPACE));
      typed.addAll(action);
      narrator.step("$ pointsman " + String.join(" ", typed));
      DemoReport.ActionTiming t = cli.run(typed);
      narrator.say("(exit " + t.exitCode() + ", " + GoDurations.format(t.took().truncatedTo(ChronoUnit.MILLIS))
          + ")");
      return new DemoReport.ActionTiming(String.join(" ", action), t.exitCode(), t.took());
    }

    private static void awaitTopology(Router router) {
      try {
        if (!router.awaitTopology(Duration.ofSeconds(30))) {
          throw new IllegalStateException("the router did not read the topology within 30s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the router read the topology", e);
      }
    }

    /** Waits until the load got {@link DemoOptions#settle()} worth of further acknowledgements. */
    private void awaitWritesFlow(LoadWriter load, String when) {
      long target = load.loadLog().acknowledged() + Math.max(1, (long) (options.loadRate()
          * options.settle().toMillis() / 1000.0));
      Waits.until("acknowledged writes " + when, WRITES_FLOW_TIMEOUT, POLL,
          () -> load.loadLog().acknowledged() >= target);
      narrator.say("load: " + load.loadLog().acknowledged() + " writes acknowledged so far");
    }
  }

  /** The demo speaks through its own lines and the CLI's; logs only for what goes wrong. */
  private static void quietLogs() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext) {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
      ((Logger) LoggerFactory.getLogger("io.pointsman")).setLevel(Level.WARN);
    }
  }
}
