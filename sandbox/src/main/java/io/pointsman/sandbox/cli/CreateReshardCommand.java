package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.ReshardCreator;
import io.pointsman.sandbox.cluster.ReshardSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sandbox create-reshard}: Vitess's {@code Reshard create} of customer into four shards. */
@Command(name = "create-reshard", mixinStandardHelpOptions = true,
    description = "Create the Reshard workflow splitting customer -80,80- into -40,40-80,80-c0,c0-.")
final class CreateReshardCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Mixin
  CredentialOptions credentials;

  @Option(names = "--workflow", description = "Workflow name (default: ${DEFAULT-VALUE}).")
  String workflow = SandboxLayout.RESHARD_WORKFLOW;

  @Option(names = "--no-auto-start", description = "Create the streams Stopped instead of starting them.")
  boolean noAutoStart;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ReshardSpec s = ReshardSpec.sandbox();
    s = new ReshardSpec(workflow, s.keyspace(), s.sourceShards(), s.targetShards(), !noAutoStart);
    try (TopologyConnection topo = TopologyConnection.open(dataDir.dataDir)) {
      CreatedWorkflow wf = new ReshardCreator(topo.store(), credentials.credentials()).create(s);
      Printing.print(spec.commandLine().getOut(), wf);
    }
    return 0;
  }
}
