package io.pointsman.cli;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.client.TemporalConnection;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code Actions}: the pointsman actions run on the workflow and the progress of a running one; starts nothing. */
@Command(name = "Actions", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Show the latest run of each pointsman action on the workflow (SwitchTraffic, ReverseTraffic, "
        + "MirrorTraffic, Complete, Cancel): its status, result or failure, and the steps of one that is running.",
        "Starts nothing."})
final class ActionsCommand implements Callable<Integer> {
  @ParentCommand
  MigrationGroup group;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    if (group.outputFormat(spec) == OutputFormat.JSON) {
      throw new ParameterException(spec.commandLine(), "--format json is not supported by Actions, which "
          + "prints pointsman's run history as text; Status --format json prints vtctld's WorkflowStatusResponse");
    }
    // checked as an action checks them, so a typo is a usage error here too
    String workflow = name("--workflow", group.workflow, Names::workflow);
    String targetKeyspace = name("--target-keyspace", group.targetKeyspace, Names::keyspace);
    try (TemporalConnection temporal = group.root.connect()) {
      return new StatusReport(temporal, spec.commandLine().getOut()).print(group.groupName(), targetKeyspace,
          workflow);
    }
  }

  private String name(String flag, String value, UnaryOperator<String> check) {
    if (value == null) {
      throw new ParameterException(spec.commandLine(), "missing required option " + flag);
    }
    try {
      return check.apply(value);
    } catch (PointsmanException e) {
      throw new ParameterException(spec.commandLine(), "invalid value for " + flag + ": " + e.getMessage(), e);
    }
  }
}
