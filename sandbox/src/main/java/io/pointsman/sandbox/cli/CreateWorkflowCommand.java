package io.pointsman.sandbox.cli;

import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MysqlCredentials;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sandbox create-movetables} and {@code create-reshard}: the same flags but the workflow's name
 * (whose default differs), the same run against the sandbox's topology; only the creator differs.
 */
abstract class CreateWorkflowCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Mixin
  CredentialOptions credentials;

  @Option(names = "--no-auto-start", description = "Create the streams Stopped instead of starting them.")
  boolean noAutoStart;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Creates the sandbox's workflow of this kind, its streams started or not. */
  abstract CreatedWorkflow create(TopologyStore store, MysqlCredentials credentials, boolean autoStart);

  @Override
  public final Integer call() {
    try (TopologyConnection topo = TopologyConnection.open(dataDir.dataDir)) {
      CreatedWorkflow wf = create(topo.store(), credentials.credentials(), !noAutoStart);
      Printing.print(spec.commandLine().getOut(), wf);
    }
    return 0;
  }
}
