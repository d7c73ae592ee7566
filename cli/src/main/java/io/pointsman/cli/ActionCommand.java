package io.pointsman.cli;

import io.pointsman.client.TemporalConnection;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * One traffic action: validates the flags into the workflow's input (a usage error starts
 * nothing), then starts the workflow and follows it to the end.
 */
abstract class ActionCommand implements Callable<Integer> {
  @ParentCommand
  MigrationGroup group;

  @Spec
  CommandSpec spec;

  /** The workflow type, e.g. {@link io.pointsman.api.workflows.Pointsman#SWITCH_TRAFFIC}. */
  abstract String workflowType();

  /** The validated workflow input; throws a ParameterException naming the flag when a value is wrong. */
  abstract Object request();

  abstract boolean dryRun();

  @Override
  public Integer call() {
    OutputFormat format = group.outputFormat(spec);
    Object request = request();
    try (TemporalConnection temporal = group.root.connect()) {
      ActionRun run = new ActionRun(group.groupName(), spec.name(), workflowType(), group.targetKeyspace,
          group.workflow, request, dryRun());
      return new ActionRunner(temporal, spec.commandLine().getOut(), spec.commandLine().getErr(), format).run(run);
    }
  }
}
