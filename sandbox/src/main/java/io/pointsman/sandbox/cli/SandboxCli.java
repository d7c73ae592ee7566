package io.pointsman.sandbox.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.pointsman.api.errors.PointsmanException;
import java.io.PrintWriter;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The sandbox command line: {@code up}, {@code down}, {@code status}, {@code create-movetables}
 * and {@code create-reshard}. Run it with
 * {@code mvn -q -pl sandbox exec:java -Dexec.mainClass=io.pointsman.sandbox.cli.SandboxCli -Dexec.args="up"}.
 */
@Command(name = "sandbox", mixinStandardHelpOptions = true,
    description = "A Vitess-shaped cluster on this machine: etcd and one MariaDB per shard primary.",
    subcommands = {UpCommand.class, DownCommand.class, StatusCommand.class, CreateMoveTablesCommand.class,
        CreateReshardCommand.class})
public final class SandboxCli implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    quietLibraries();
    System.exit(commandLine().execute(args));
  }

  /** The command line with pointsman's errors printed as one line and exit code 1. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new SandboxCli());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      if (e instanceof PointsmanException p) {
        err.println("error: " + p.getMessage());
      } else {
        err.println("error: " + e);
      }
      err.flush();
      return 1;
    });
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Progress of the sandbox itself at INFO; the gRPC and Netty chatter of jetcd only when it matters. */
  private static void quietLibraries() {
    if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext) {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
      ((Logger) LoggerFactory.getLogger("io.pointsman")).setLevel(Level.INFO);
    }
  }
}
