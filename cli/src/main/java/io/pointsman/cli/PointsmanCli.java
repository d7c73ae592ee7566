package io.pointsman.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code pointsman}: vtctldclient's {@code MoveTables} and {@code Reshard} traffic commands, run as
 * Temporal workflows. Exit codes: 0 done, 1 the action failed (or Temporal could not be reached),
 * 2 the command line was wrong (nothing was started).
 */
@Command(name = "pointsman", mixinStandardHelpOptions = true, versionProvider = PointsmanCli.Version.class,
    usageHelpAutoWidth = true, sortOptions = false,
    description = {
        "Switches Vitess traffic (MoveTables and Reshard SwitchTraffic, ReverseTraffic, Complete, Cancel; "
            + "MoveTables MirrorTraffic) as durable Temporal workflows, with locks that cannot expire unnoticed.",
        "Each action starts one workflow on a pointsman worker, shows its steps as they run and prints the "
            + "result; Status starts nothing."},
    subcommands = {MoveTablesCommand.class, ReshardCommand.class, MigrateCommand.class, ValidateCommand.class, HistoryCommand.class,
        CommandLine.HelpCommand.class},
    footer = {"", "Examples:",
        "  pointsman MoveTables --workflow commerce2customer --target-keyspace customer SwitchTraffic "
            + "--tablet-types REPLICA,RDONLY",
        "  pointsman MoveTables --workflow commerce2customer --target-keyspace customer MirrorTraffic "
            + "--tablet-types replica,rdonly --percent 5",
        "  pointsman MoveTables --workflow commerce2customer --target-keyspace customer Status",
        "  pointsman Validate --workflow commerce2customer --target-keyspace customer",
        "  pointsman Reshard --workflow cust2cust --target-keyspace customer SwitchTraffic --dry-run"})
public final class PointsmanCli implements Runnable {
  /** How long the CLI waits for Temporal to answer before giving up with a message. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  @Option(names = "--temporal-address", scope = ScopeType.INHERIT, paramLabel = "HOST:PORT",
      defaultValue = "${env:TEMPORAL_ADDRESS:-" + TemporalOptions.DEFAULT_ADDRESS + "}",
      description = "Temporal frontend to start the workflows on (default: $TEMPORAL_ADDRESS, else "
          + TemporalOptions.DEFAULT_ADDRESS + ").")
  String temporalAddress;

  @Option(names = "--namespace", scope = ScopeType.INHERIT, paramLabel = "NAMESPACE",
      defaultValue = "${env:TEMPORAL_NAMESPACE:-" + TemporalOptions.DEFAULT_NAMESPACE + "}",
      description = "Temporal namespace (default: $TEMPORAL_NAMESPACE, else " + TemporalOptions.DEFAULT_NAMESPACE
          + ").")
  String namespace;

  @Option(names = "--task-queue", scope = ScopeType.INHERIT, paramLabel = "QUEUE",
      defaultValue = "${env:POINTSMAN_TASK_QUEUE:-pointsman}",
      description = "Task queue the pointsman workers poll (default: $POINTSMAN_TASK_QUEUE, else pointsman).")
  String taskQueue;

  @Option(names = "--tls-cert", scope = ScopeType.INHERIT, paramLabel = "FILE",
      defaultValue = "${env:TEMPORAL_TLS_CERT}",
      description = "PEM client certificate for mutual TLS to Temporal (default: $TEMPORAL_TLS_CERT).")
  Path tlsCert;

  @Option(names = "--tls-key", scope = ScopeType.INHERIT, paramLabel = "FILE",
      defaultValue = "${env:TEMPORAL_TLS_KEY}",
      description = "PKCS#8 PEM key of --tls-cert (default: $TEMPORAL_TLS_KEY).")
  Path tlsKey;

  @Option(names = "--tls-ca", scope = ScopeType.INHERIT, paramLabel = "FILE",
      defaultValue = "${env:TEMPORAL_TLS_CA}",
      description = "PEM CA certificates to trust for Temporal's server certificate (default: $TEMPORAL_TLS_CA). "
          + "Temporal's API key is read from $TEMPORAL_API_KEY only, never from a flag.")
  Path tlsCa;

  @Option(names = "--tls-server-name", scope = ScopeType.INHERIT, paramLabel = "NAME",
      defaultValue = "${env:TEMPORAL_TLS_SERVER_NAME}",
      description = "Server name to verify Temporal's certificate against (default: $TEMPORAL_TLS_SERVER_NAME).")
  String tlsServerName;

  @Option(names = "--tls", scope = ScopeType.INHERIT, arity = "1", paramLabel = "true|false",
      defaultValue = "${env:TEMPORAL_TLS}",
      description = "TLS to Temporal on or off (default: $TEMPORAL_TLS, else on when a certificate, CA or "
          + "$TEMPORAL_API_KEY is set).")
  Boolean tls;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    quietLibraries();
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line, ready to {@link CommandLine#execute}; a caller may redirect its output with
   * {@link CommandLine#setOut}/{@link CommandLine#setErr} (the demo does, to run the actions in-process).
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new PointsmanCli());
    cli.setSubcommandsCaseInsensitive(true); // vtctldclient takes both SwitchTraffic and switchtraffic
    cli.setParameterExceptionHandler(PointsmanCli::usageError);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      err.println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      err.flush();
      return CommandLine.ExitCode.SOFTWARE;
    });
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The Temporal settings from the flags. */
  TemporalOptions temporalOptions() {
    try {
      TemporalOptions.Builder b = TemporalOptions.builder()
          .address(temporalAddress)
          .namespace(namespace)
          .taskQueue(taskQueue)
          .tlsCertFile(tlsCert)
          .tlsKeyFile(tlsKey)
          .tlsCaFile(tlsCa)
          .tlsServerName(tlsServerName)
          .apiKey(System.getenv("TEMPORAL_API_KEY"));
      if (tls != null) {
        b.tls(tls);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  /** Connects to Temporal, failing with one clear line when it does not answer. */
  TemporalConnection connect() {
    return TemporalConnection.connected(temporalOptions(), CONNECT_TIMEOUT);
  }

  /** A wrong command line: the message and where to find help, no usage dump; exit 2. */
  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("error: " + e.getMessage());
    err.println("Nothing was started. See '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
    err.flush();
    return CommandLine.ExitCode.USAGE;
  }

  /** The CLI talks through its output; library logs only when something is wrong. */
  private static void quietLibraries() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext) {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    }
  }

  /** The version from the jar's manifest, when there is one. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = PointsmanCli.class.getPackage().getImplementationVersion();
      return new String[] {"pointsman " + (v == null ? "(development build)" : v)};
    }
  }
}
