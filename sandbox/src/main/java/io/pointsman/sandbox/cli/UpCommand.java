package io.pointsman.sandbox.cli;

import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.cluster.RunningPrimary;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sandbox up}: starts the servers, writes the topology and sample data, and leaves them running. */
@Command(name = "up", mixinStandardHelpOptions = true,
    description = "Start etcd and the MariaDB primaries, bootstrap the topology and load the sample rows.")
final class UpCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Mixin
  CredentialOptions credentials;

  @Option(names = "--base-port", paramLabel = "PORT",
      description = "Port of the first MariaDB; the others follow (default: ${DEFAULT-VALUE}; 0: any free ports).")
  int basePort = SandboxOptions.DEFAULT_BASE_PORT;

  @Option(names = "--etcd", paramLabel = "URL",
      description = "Use the etcd at this endpoint (e.g. http://127.0.0.1:2379) instead of starting one.")
  String etcd;

  @Option(names = "--etcd-port", paramLabel = "PORT",
      description = "Client port of the sandbox's own etcd (default: ${DEFAULT-VALUE}).")
  int etcdPort = SandboxOptions.DEFAULT_ETCD_CLIENT_PORT;

  @Option(names = "--etcd-peer-port", paramLabel = "PORT",
      description = "Peer port of the sandbox's own etcd (default: ${DEFAULT-VALUE}).")
  int etcdPeerPort = SandboxOptions.DEFAULT_ETCD_PEER_PORT;

  @Option(names = "--reuse", description = "Use servers already listening on the sandbox's ports.")
  boolean reuse;

  @Option(names = "--without-reshard-targets",
      description = "Run only the serving shards' primaries (3 MariaDB servers instead of 7).")
  boolean withoutReshardTargets;

  @Option(names = "--global-root", paramLabel = "PATH",
      description = "Topology global root (default: ${DEFAULT-VALUE}).")
  String globalRoot = TopoPaths.DEFAULT_GLOBAL_ROOT;

  @Option(names = "--cell-root-prefix", paramLabel = "PATH",
      description = "Prefix of cell roots (default: ${DEFAULT-VALUE}).")
  String cellRootPrefix = TopoPaths.DEFAULT_CELL_ROOT_PREFIX;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    SandboxOptions.Builder b = SandboxOptions.builder()
        .dataDir(dataDir.dataDir)
        .basePort(basePort)
        .etcdEndpoint(etcd)
        .etcdPorts(etcdPort, etcdPeerPort)
        .reuseRunning(reuse)
        .topologyRoots(globalRoot, cellRootPrefix)
        .credentials(credentials.credentials());
    if (withoutReshardTargets) {
      b.withoutReshardTargets();
    }
    Sandbox sandbox = Sandbox.up(b.build());
    PrintWriter out = spec.commandLine().getOut();
    out.println("etcd: " + sandbox.etcdEndpoint());
    for (RunningPrimary p : sandbox.primaries()) {
      out.printf("%s %s/%s on 127.0.0.1:%d%s%n", p.alias(), p.primary().keyspace(), p.primary().shard(), p.port(),
          p.reused() ? " (reused)" : "");
    }
    out.println("data: " + sandbox.options().dataDir());
    out.flush();
    sandbox.detach();
    return 0;
  }
}
