package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesCreator;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sandbox create-movetables}: Vitess's {@code MoveTables create} of commerce's customer tables. */
@Command(name = "create-movetables", mixinStandardHelpOptions = true,
    description = "Create the MoveTables workflow moving customer and corder from commerce to customer.")
final class CreateMoveTablesCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Mixin
  CredentialOptions credentials;

  @Option(names = "--workflow", description = "Workflow name (default: ${DEFAULT-VALUE}).")
  String workflow = SandboxLayout.MOVETABLES_WORKFLOW;

  @Option(names = "--no-auto-start", description = "Create the streams Stopped instead of starting them.")
  boolean noAutoStart;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    MoveTablesSpec s = MoveTablesSpec.sandbox();
    s = new MoveTablesSpec(workflow, s.sourceKeyspace(), s.targetKeyspace(), s.tables(), !noAutoStart);
    try (TopologyConnection topo = TopologyConnection.open(dataDir.dataDir)) {
      CreatedWorkflow wf = new MoveTablesCreator(topo.store(), credentials.credentials()).create(s);
      Printing.print(spec.commandLine().getOut(), wf);
    }
    return 0;
  }
}
