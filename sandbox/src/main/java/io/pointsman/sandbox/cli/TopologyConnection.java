package io.pointsman.sandbox.cli;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.sandbox.cluster.SandboxState;
import io.pointsman.sandbox.cluster.SandboxStateFile;
import java.nio.file.Path;

/** The topology of a running sandbox, found through its state file. Closing it closes the etcd client. */
final class TopologyConnection implements AutoCloseable {
  private final SandboxState state;
  private final Client client;
  private final TopologyStore store;

  private TopologyConnection(SandboxState state) {
    this.state = state;
    this.client = EtcdClients.create(EtcdOptions.builder().endpoints(state.etcdEndpoint()).build());
    this.store = new EtcdTopologyStore(client, new TopoPaths(state.globalRoot(), state.cellRootPrefix()));
  }

  static TopologyConnection open(Path dataDir) {
    SandboxStateFile file = new SandboxStateFile(dataDir);
    SandboxState state = file.read().orElseThrow(() -> PointsmanException.failedPrecondition(
        "no sandbox state in " + file.path() + ": bring the sandbox up first (sandbox up --data-dir " + dataDir + ")"));
    return new TopologyConnection(state);
  }

  SandboxState state() {
    return state;
  }

  TopologyStore store() {
    return store;
  }

  @Override
  public void close() {
    client.close();
  }
}
