package io.pointsman.demo;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The demo's few options; everything else is fixed so that it runs the same everywhere. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"pointsman's demo: sandbox, dev-mode Temporal and worker, MoveTables commerce2customer under "
        + "constant write load, SwitchTraffic (reads, then writes), ReverseTraffic, SwitchTraffic, Complete, "
        + "and a summary. It needs etcd and mariadbd (scripts/demo.sh installs them) and leaves nothing running."})
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--rate", paramLabel = "WRITES_PER_SECOND", defaultValue = "50",
      description = "Inserts per second the load sends through the router (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--settle", paramLabel = "SECONDS", defaultValue = "2",
      description = "Seconds of load to see acknowledged after each action before the next (default: "
          + "${DEFAULT-VALUE}).")
  int settleSeconds;

  @Option(names = "--playground",
      description = "Start the sandbox, dev mode and the copied MoveTables workflow, and leave them running for "
          + "the CLI in another terminal until Ctrl-C; no load, no actions.")
  boolean playground;

  @Option(names = "--temporal-port", paramLabel = "PORT", defaultValue = "7233",
      description = "With --playground: the port dev mode serves Temporal on (default: ${DEFAULT-VALUE}, the CLI's "
          + "default).")
  int temporalPort;

  private boolean help = true;

  @Override
  public Integer call() {
    help = false;
    options(); // validates now, so a bad value is a usage error
    return 0;
  }

  boolean playground() {
    return playground;
  }

  int temporalPort() {
    return temporalPort;
  }

  boolean helpRequested() {
    return help;
  }

  DemoOptions options() {
    return DemoOptions.builder().loadRate(rate).settle(java.time.Duration.ofSeconds(settleSeconds)).build();
  }
}
