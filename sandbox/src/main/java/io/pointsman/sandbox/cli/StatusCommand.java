package io.pointsman.sandbox.cli;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.sandbox.cluster.PrimaryTablet;
import io.pointsman.sandbox.cluster.PrimaryTablets;
import io.pointsman.sandbox.cluster.SandboxState;
import io.pointsman.sandbox.cluster.VReplicationStream;
import io.pointsman.sandbox.cluster.VReplicationTable;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sandbox status}: the servers, the shards and their primaries, routing rules and streams. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show the sandbox's servers, shards, routing rules and VReplication streams.")
final class StatusCommand implements Callable<Integer> {
  @Mixin
  DataDirOption dataDir;

  @Mixin
  CredentialOptions credentials;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (TopologyConnection topo = TopologyConnection.open(dataDir.dataDir)) {
      SandboxState state = topo.state();
      out.println("etcd " + state.etcdEndpoint() + ", roots " + state.globalRoot() + " and "
          + state.cellRootPrefix() + "/" + state.cell());
      for (SandboxState.ManagedProcess p : state.processes()) {
        out.printf("  %-18s pid %-8d port %-6d %s%n", p.name(), p.pid(), p.port(), p.isRunning() ? "running" : "GONE");
      }
      TopologyStore store = topo.store();
      PrimaryTablets tablets = new PrimaryTablets(store);
      for (String keyspace : store.listKeyspaces()) {
        for (Map.Entry<String, Shard> e : tablets.shards(keyspace).entrySet()) {
          Shard shard = e.getValue();
          out.printf("%s/%s primary %s %s denied %s%n", keyspace, e.getKey(), shard.primaryAlias(),
              shard.isPrimaryServing() ? "serving" : "not serving", shard.deniedTables(TabletType.PRIMARY));
          printStreams(out, tablets, keyspace, e.getKey());
        }
      }
      RoutingRules rules = store.get(store.keys().routingRules()).map(Versioned::value).orElse(RoutingRules.EMPTY);
      out.println("routing rules: " + rules.rules().size());
      rules.asMap().forEach((from, to) -> out.println("  " + from + " -> " + to));
    }
    out.flush();
    return 0;
  }

  private void printStreams(PrintWriter out, PrimaryTablets tablets, String keyspace, String shard) {
    Optional<PrimaryTablet> primary;
    try {
      primary = Optional.of(tablets.primary(keyspace, shard));
    } catch (RuntimeException e) {
      out.println("  (no primary: " + e.getMessage() + ")");
      return;
    }
    try (Connection c = primary.get().connect(credentials.credentials())) {
      for (VReplicationStream s : VReplicationTable.readAll(c, primary.get().sidecarDb())) {
        out.printf("  stream %d %s from %s/%s: %s pos '%s'%s%n", s.id(), s.workflow(), s.source().keyspace(),
            s.source().shard(), s.state(), s.pos(), s.message() == null || s.message().isEmpty() ? ""
                : " (" + s.message() + ")");
      }
    } catch (SQLException | RuntimeException e) {
      out.println("  (cannot read streams: " + e.getMessage() + ")");
    }
  }
}
