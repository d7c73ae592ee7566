package io.pointsman.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One run of the CLI in this process, with what it printed. */
record CliRun(int exitCode, String out, String err) {
  static CliRun of(String... args) {
    CommandLine cli = PointsmanCli.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /** Parses without running, and returns the command object the arguments select. */
  static <T> T parse(Class<T> type, String... args) {
    CommandLine cli = PointsmanCli.commandLine();
    CommandLine.ParseResult r = cli.parseArgs(args);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    return type.cast(r.commandSpec().userObject());
  }
}
