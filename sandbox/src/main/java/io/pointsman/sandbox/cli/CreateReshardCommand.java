package io.pointsman.sandbox.cli;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MysqlCredentials;
import io.pointsman.sandbox.cluster.ReshardCreator;
import io.pointsman.sandbox.cluster.ReshardSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sandbox create-reshard}: Vitess's {@code Reshard create} of customer into four shards. */
@Command(name = "create-reshard", mixinStandardHelpOptions = true,
    description = "Create the Reshard workflow splitting customer -80,80- into -40,40-80,80-c0,c0-.")
final class CreateReshardCommand extends CreateWorkflowCommand {
  @Option(names = "--workflow", description = "Workflow name (default: ${DEFAULT-VALUE}).")
  String workflow = SandboxLayout.RESHARD_WORKFLOW;

  @Override
  CreatedWorkflow create(TopologyStore store, MysqlCredentials credentials, boolean autoStart) {
    ReshardSpec s = ReshardSpec.sandbox();
    s = new ReshardSpec(workflow, s.keyspace(), s.sourceShards(), s.targetShards(), autoStart);
    return new ReshardCreator(store, credentials).create(s);
  }
}
