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

  /** {@code MoveTables --workflow commerce2customer --target-keyspace customer}, then {@code more}. */
  static String[] moveTables(String... more) {
    return concat(new String[] {"MoveTables", "--workflow", "commerce2customer", "--target-keyspace", "customer"},
        more);
  }

  /** Runs whole against an address where no Temporal listens: a refusal must come before connecting. */
  static CliRun withoutTemporal(String... args) {
    return of(concat(new String[] {"--temporal-address", "127.0.0.1:1"}, args));
  }

  private static String[] concat(String[] first, String[] then) {
    String[] all = new String[first.length + then.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(then, 0, all, first.length, then.length);
    return all;
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
