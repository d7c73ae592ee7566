package io.pointsman.cli;

import io.pointsman.api.model.TopologyReport;
import io.pointsman.api.request.ValidateRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ValidateTopologyWorkflow;
import io.pointsman.client.TemporalConnection;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code pointsman Validate --workflow W --target-keyspace K}: has a worker check the workflow's
 * topology against its defined states (the worker has etcd and the shard primaries; the CLI only
 * Temporal) and prints every broken invariant. Exit codes: 0 nothing broken, 1 something is (or
 * the check could not run), 2 a wrong command line.
 */
@Command(name = "Validate", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = "Checks a workflow's routing rules, denied tables, write barriers, serving shards, SrvVSchema, "
        + "streams, journal and locks against its defined states and names each broken invariant. Changes "
        + "nothing; runs on a pointsman worker as workflow ValidateTopology.")
final class ValidateCommand implements Callable<Integer> {
  /** The check reads a few dozen records; a worker that does not answer in this time is not there. */
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @ParentCommand
  PointsmanCli root;

  @Spec
  CommandSpec spec;

  @Option(names = {"--workflow", "-w"}, required = true, paramLabel = "WORKFLOW",
      description = "The VReplication workflow, e.g. commerce2customer.")
  String workflow;

  @Option(names = "--target-keyspace", required = true, paramLabel = "KEYSPACE",
      description = "Its target keyspace, e.g. customer.")
  String targetKeyspace;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", description = OutputFormat.FLAG_DESCRIPTION)
  String format;

  @Override
  public Integer call() throws com.fasterxml.jackson.core.JsonProcessingException {
    OutputFormat outputFormat = OutputFormat.of(spec, format);
    ValidateRequest request;
    try {
      request = ValidateRequest.of(workflow, targetKeyspace);
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    try (TemporalConnection temporal = root.connect()) {
      // a fresh id each time: checks change nothing, so two may run side by side
      String id = Pointsman.workflowId(Pointsman.VALIDATE_TOPOLOGY, targetKeyspace, workflow) + "-"
          + UUID.randomUUID().toString().substring(0, 8);
      ValidateTopologyWorkflow wf = temporal.client().newWorkflowStub(ValidateTopologyWorkflow.class,
          WorkflowOptions.newBuilder()
              .setTaskQueue(temporal.options().taskQueue())
              .setWorkflowId(id)
              .setWorkflowExecutionTimeout(TIMEOUT)
              .build());
      TopologyReport report = wf.validate(request);
      PrintWriter out = root.spec.commandLine().getOut();
      // json: the report as the worker answered it (targetKeyspace, workflow, state, summary, violations)
      out.println(outputFormat == OutputFormat.JSON
          ? new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report)
          : describe(report));
      out.flush();
      return report.holds() ? 0 : 1;
    }
  }

  static String describe(TopologyReport r) {
    StringBuilder sb = new StringBuilder(r.targetKeyspace()).append('.').append(r.workflow()).append(": ")
        .append(r.state()).append(" (").append(r.summary()).append(")\n");
    if (r.holds()) {
      return sb.append("no broken invariant").toString();
    }
    for (TopologyReport.Violation v : r.violations()) {
      sb.append("  VIOLATION ").append(v.invariant()).append(": ").append(v.detail()).append('\n');
    }
    return sb.append(r.violations().size()).append(r.violations().size() == 1 ? " broken invariant"
        : " broken invariants").toString();
  }
}
