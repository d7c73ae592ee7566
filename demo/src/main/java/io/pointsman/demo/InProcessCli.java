package io.pointsman.demo;

import io.pointsman.cli.PointsmanCli;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * Runs {@code pointsman} commands in this process through the CLI's own code, so their steps print
 * live, exactly as the command would print them in a terminal.
 */
final class InProcessCli {
  private final String temporalAddress;
  private final PrintStream out;

  InProcessCli(String temporalAddress, PrintStream out) {
    this.temporalAddress = temporalAddress;
    this.out = out;
  }

  /**
   * @param args the arguments as a user types them, without {@code --temporal-address}
   * @return the exit code and how long the command took
   */
  DemoReport.ActionTiming run(List<String> args) {
    List<String> all = new ArrayList<>(List.of("--temporal-address", temporalAddress));
    all.addAll(args);
    CommandLine cli = PointsmanCli.commandLine();
    PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    cli.setOut(writer);
    cli.setErr(writer);
    long start = System.nanoTime();
    int code = cli.execute(all.toArray(String[]::new));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    writer.flush();
    return new DemoReport.ActionTiming(String.join(" ", args), code, took);
  }
}
