package io.pointsman.cli;

import io.pointsman.api.request.ShowRequest;
import io.pointsman.client.TemporalConnection;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code show}: vtctldclient's {@code show}, vtctld's GetWorkflowsResponse for the workflow as JSON
 * (vtctldclient prints JSON here whatever {@code --format} says, and so does pointsman).
 */
@Command(name = "Show", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {"Show the workflow as vtctldclient's show does: vtctld's GetWorkflowsResponse as JSON — each "
        + "target shard's streams with id, tablet, binlog source, position, state, time_updated, "
        + "transaction_timestamp, copy states and logs.", "Starts no action; runs on a pointsman worker as "
        + "workflow ShowWorkflow."})
final class ShowCommand implements Callable<Integer> {
  @ParentCommand
  MigrationGroup group;

  @Spec
  CommandSpec spec;

  @Option(names = "--include-logs", arity = "0..1", paramLabel = "BOOL", defaultValue = "true", fallbackValue = "true",
      description = "Include recent logs for the workflow (default: ${DEFAULT-VALUE}).")
  boolean includeLogs;

  @Override
  public Integer call() {
    group.outputFormat(spec);
    ShowRequest request = Requests.show(spec, group, includeLogs);
    try (TemporalConnection temporal = group.root.connect()) {
      String json = WorkflowReads.read(temporal, request);
      PrintWriter out = spec.commandLine().getOut();
      out.println(json);
      out.flush();
      return 0;
    }
  }
}
