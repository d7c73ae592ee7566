package io.pointsman.sandbox.cli;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesCreator;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.MysqlCredentials;
import io.pointsman.sandbox.cluster.SandboxLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sandbox create-movetables}: Vitess's {@code MoveTables create} of commerce's customer tables. */
@Command(name = "create-movetables", mixinStandardHelpOptions = true,
    description = "Create the MoveTables workflow moving customer and corder from commerce to customer.")
final class CreateMoveTablesCommand extends CreateWorkflowCommand {
  @Option(names = "--workflow", description = "Workflow name (default: ${DEFAULT-VALUE}).")
  String workflow = SandboxLayout.MOVETABLES_WORKFLOW;

  @Override
  CreatedWorkflow create(TopologyStore store, MysqlCredentials credentials, boolean autoStart) {
    MoveTablesSpec s = MoveTablesSpec.sandbox();
    s = new MoveTablesSpec(workflow, s.sourceKeyspace(), s.targetKeyspace(), s.tables(), autoStart);
    return new MoveTablesCreator(store, credentials).create(s);
  }
}
