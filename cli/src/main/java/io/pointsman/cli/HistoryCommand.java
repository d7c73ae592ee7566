package io.pointsman.cli;

import io.pointsman.client.TemporalConnection;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code pointsman History --workflow-id ID [--run-id R] [--out file.json]}: fetches a workflow's
 * history from any Temporal as the JSON that {@code WorkflowReplayer} and the replay corpus
 * ({@code workflows/src/test/resources/histories}) read, so a failure seen in production can be
 * replayed against the workflow code before a worker with that code is deployed.
 */
@Command(name = "History", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Writes a workflow's event history as JSON (the format of 'temporal workflow show "
        + "--output json'), for replay tests.")
final class HistoryCommand implements Callable<Integer> {
  @ParentCommand
  PointsmanCli root;

  @Option(names = "--workflow-id", required = true, paramLabel = "ID",
      description = "Workflow id, e.g. SwitchTraffic-customer.commerce2customer.")
  String workflowId;

  @Option(names = "--run-id", paramLabel = "RUN", description = "Run id (default: the latest run).")
  String runId;

  @Option(names = "--out", paramLabel = "FILE", description = "File to write (default: standard output).")
  Path out;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "json",
      description = "The format of the output: json only, the history is JSON (default: ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Integer call() throws Exception {
    if (!"json".equalsIgnoreCase(format.trim())) {
      throw new picocli.CommandLine.ParameterException(root.spec.commandLine().getSubcommands().get("History"),
          "invalid value for --format: '" + format + "' (History writes JSON only)");
    }
    try (TemporalConnection temporal = root.connect()) {
      WorkflowExecutionHistory history = runId == null
          ? temporal.client().fetchHistory(workflowId)
          : temporal.client().fetchHistory(workflowId, runId);
      String json = history.toJson(true);
      PrintWriter stdout = root.spec.commandLine().getOut();
      if (out == null) {
        stdout.println(json);
      } else {
        Files.writeString(out, json + "\n", StandardCharsets.UTF_8);
        stdout.println("wrote " + history.getEvents().size() + " events of " + workflowId + " (run "
            + history.getWorkflowExecution().getRunId() + ") to " + out);
      }
      stdout.flush();
      return 0;
    }
  }
}
