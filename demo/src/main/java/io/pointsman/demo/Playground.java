package io.pointsman.demo;

import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.RunningPrimary;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.stack.OpenedParts;
import io.pointsman.sandbox.stack.SandboxStack;
import io.pointsman.worker.DevMode;
import io.pointsman.worker.TemporalDevServer;
import io.pointsman.worker.WorkerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything pointsman needs on one machine, started for the demo and the end-to-end tests: the
 * sandbox (etcd and the MariaDB primaries of commerce/0, customer/-80 and customer/80-, in a
 * fresh data folder), the stream runner, dev mode (the Temporal dev server, or the SDK's test server, and a pointsman worker),
 * and the MoveTables workflow {@code commerce2customer}, copied and replicating. Whatever it
 * starts is registered with the caller's {@link OpenedParts}, so it is stopped even when the start
 * fails half-way.
 */
final class Playground {
  static final String WORKFLOW = MoveTablesSpec.sandbox().workflow();
  static final String TARGET_KEYSPACE = MoveTablesSpec.sandbox().targetKeyspace();
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(120);

  final Path dataDir;
  final Sandbox sandbox;
  final DevMode dev;
  final Services services;
  final CreatedWorkflow workflow;
  /** Every port the playground's servers listen on. */
  final List<Integer> ports;
  private final SandboxStack stack;

  private Playground(SandboxStack stack, DevMode dev, CreatedWorkflow workflow, List<Integer> ports) {
    this.stack = stack;
    this.dataDir = stack.dir();
    this.sandbox = stack.sandbox();
    this.dev = dev;
    this.services = stack.services();
    this.workflow = workflow;
    this.ports = List.copyOf(ports);
  }

  /**
   * @param temporalPort the port dev mode serves Temporal on
   */
  static Playground start(OpenedParts teardown, Narrator narrator, int temporalPort) {
    List<Integer> ports = new ArrayList<>();
    narrator.step("The sandbox: etcd and three MariaDB primaries on loopback (commerce/0, customer/-80, customer/80-)");
    SandboxStack stack = teardown.add("the sandbox, its stream runner and data folder",
        SandboxStack.in("pointsman-demo").sandbox(b -> b.basePort(0).etcdPorts(0, 0).withoutReshardTargets()
            // the caller's teardown stops it, after the worker that uses it: the sandbox's own exit
            // hook would run at the same time as the teardown's and pull the servers from under it
            .stopOnJvmExit(false))
        .start());
    Sandbox sandbox = stack.sandbox();
    ports.add(URI.create(sandbox.etcdEndpoint()).getPort());
    narrator.say("etcd " + sandbox.etcdEndpoint() + ", topology under " + sandbox.options().topoPaths().globalRoot());
    for (RunningPrimary p : sandbox.primaries()) {
      ports.add(p.port());
      narrator.say(p.alias() + " primary of " + p.primary().keyspace() + "/" + p.primary().shard()
          + " on 127.0.0.1:" + p.port());
    }
    narrator.say("the stream runner executes _vt.vreplication on every primary, as Vitess's vreplication does");

    narrator.step("Dev mode: a Temporal server (the real dev server when built, else the SDK's test server)"
        + " and a pointsman worker");
    DevMode dev = teardown.add("dev mode", DevMode.start(temporalPort, workerConfig(sandbox),
        stack.dir().resolve("temporal"), TemporalDevServer.find(System.getenv())));
    ports.add(temporalPort);
    narrator.say(dev.serverDescription() + " on " + dev.address() + ", worker polling task queue "
        + dev.worker().config().temporal().taskQueue());
    dev.uiUrl().ifPresent(ui -> narrator.say("Temporal UI: " + ui));

    MoveTablesSpec spec = MoveTablesSpec.sandbox();
    narrator.step("MoveTables create: " + spec.workflow() + " copies " + String.join(" and ", spec.tables())
        + " from " + spec.sourceKeyspace() + " to " + spec.targetKeyspace());
    CreatedWorkflow created = sandbox.moveTablesCreator().create(spec);
    CopyWaiter.awaitCopied(stack.services(), created, COPY_TIMEOUT);
    narrator.say("copied; " + created.streams().size() + " streams now replicate " + spec.sourceKeyspace()
        + "'s binlog into " + spec.targetKeyspace());
    return new Playground(stack, dev, created, ports);
  }

  /** The router (vtgate's stand-in) over the sandbox's topology; started on the first call, stopped with the sandbox. */
  Router router() {
    return stack.router();
  }

  /** One line: the tables, from where to where. */
  String moved() {
    MoveTablesSpec spec = MoveTablesSpec.sandbox();
    List<String> shards = workflow.streams().stream().map(CreatedWorkflow.Stream::targetShard).distinct().toList();
    return "tables " + String.join(", ", spec.tables()) + ": keyspace " + spec.sourceKeyspace()
        + " (unsharded) -> keyspace " + spec.targetKeyspace() + " (shards " + String.join(", ", shards)
        + "), MoveTables workflow " + spec.workflow();
  }

  private static WorkerConfig workerConfig(Sandbox sandbox) {
    // dev mode replaces the Temporal address with its own; no /metrics port: the registry is read in-process
    return new WorkerConfig(TemporalOptions.builder().build(),
        EtcdOptions.builder().endpoints(sandbox.etcdEndpoint()).build(),
        sandbox.options().topoPaths(), sandbox.mysqlOptions(), 0, Duration.ofSeconds(10));
  }

}
