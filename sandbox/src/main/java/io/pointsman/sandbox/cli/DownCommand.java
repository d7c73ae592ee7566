package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.StoppedProcess;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sandbox down}: stops every server the sandbox in the data folder started. */
@Command(name = "down", mixinStandardHelpOptions = true,
    description = "Stop every server the sandbox started (SIGTERM, then SIGKILL after the grace period).")
final class DownCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "How long each server may take to stop before it is killed (default: ${DEFAULT-VALUE}).")
  Duration grace = Duration.ofSeconds(30);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    List<StoppedProcess> stopped = Sandbox.stopAll(dataDir.dataDir, grace);
    PrintWriter out = spec.commandLine().getOut();
    if (stopped.isEmpty()) {
      out.println("no sandbox state in " + dataDir.dataDir + ": nothing to stop");
    }
    for (StoppedProcess p : stopped) {
      out.printf("%s (pid %d, port %d): %s%n", p.name(), p.pid(), p.port(), p.outcome());
    }
    out.flush();
    return 0;
  }
}
