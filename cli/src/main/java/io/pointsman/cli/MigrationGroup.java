package io.pointsman.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code MoveTables} or {@code Reshard}: the command group that names the VReplication workflow,
 * as vtctldclient's {@code --workflow} and {@code --target-keyspace} do. Both flags may also come
 * after the action.
 */
abstract class MigrationGroup implements Runnable {
  @Option(names = {"-w", "--workflow"}, scope = ScopeType.INHERIT, paramLabel = "WORKFLOW",
      description = "The VReplication workflow to act on (required).")
  String workflow;

  @Option(names = "--target-keyspace", scope = ScopeType.INHERIT, paramLabel = "KEYSPACE",
      description = "Target keyspace of the workflow (required).")
  String targetKeyspace;

  @Option(names = "--format", scope = ScopeType.INHERIT, paramLabel = "FORMAT", defaultValue = "text",
      description = OutputFormat.FLAG_DESCRIPTION)
  String format;

  @ParentCommand
  PointsmanCli root;

  @Spec
  CommandSpec spec;

  /** The output format; a usage error (exit 2, nothing started) when --format is neither text nor json. */
  OutputFormat outputFormat(CommandSpec command) {
    return OutputFormat.of(command, format);
  }

  /** {@code MoveTables} or {@code Reshard}, as the user typed the group's canonical name. */
  String groupName() {
    return spec.name();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
