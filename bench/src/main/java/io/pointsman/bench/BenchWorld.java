package io.pointsman.bench;

import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxOptions;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.stack.SandboxStack;
import io.pointsman.worker.DevMode;
import io.pointsman.worker.TemporalDevServer;
import io.pointsman.worker.WorkerConfig;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What a benchmark runs on: a sandbox stack of its own (etcd and the MariaDB primaries on free
 * ports, in a fresh data folder that is deleted at the end, and the stream runner), dev mode
 * (Temporal's test server in this process, or the real dev server, and a real pointsman worker
 * against it), a router, and
 * the services the direct executor calls. Closing it stops everything in reverse order.
 */
final class BenchWorld implements AutoCloseable {
  private static final Duration COPY_TIMEOUT = Duration.ofMinutes(5);

  final Sandbox sandbox;
  final DevMode dev;
  final Services services;
  final Router router;
  private final SandboxStack stack;

  private BenchWorld(SandboxStack stack, DevMode dev) {
    this.stack = stack;
    this.sandbox = stack.sandbox();
    this.dev = dev;
    this.services = stack.services();
    this.router = stack.router();
  }

  /**
   * @param shape narrows or widens the sandbox (which primaries, extra tables); the data folder,
   *     ports and etcd are the world's own
   */
  static BenchWorld start(UnaryOperator<SandboxOptions.Builder> shape) {
    return start(shape, Optional.empty());
  }

  /**
   * @param temporalServer the Temporal CLI whose dev server (its database in the world's folder,
   *     its settings the defaults) the world runs on; empty for the SDK's test server
   */
  static BenchWorld start(UnaryOperator<SandboxOptions.Builder> shape, Optional<Path> temporalServer) {
    SandboxStack stack = SandboxStack.in("pointsman-bench")
        .sandbox(b -> shape.apply(b.basePort(0).etcdPorts(0, 0)))
        .start();
    try {
      Sandbox sandbox = stack.sandbox();
      WorkerConfig config = new WorkerConfig(TemporalOptions.builder().build(),
          EtcdOptions.builder().endpoints(sandbox.etcdEndpoint()).build(), sandbox.options().topoPaths(),
          sandbox.mysqlOptions(), 0, Duration.ofSeconds(10));
      DevMode dev = stack.open(devMode(config, temporalServer, stack.dir().resolve("temporal")));
      BenchWorld world = new BenchWorld(stack, dev);
      if (!world.router.awaitTopology(Duration.ofSeconds(30))) {
        throw new IllegalStateException("the router did not read the topology within 30s");
      }
      return world;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      IllegalStateException failure = new IllegalStateException("interrupted while the bench world started", e);
      stack.closeAfter(failure);
      throw failure;
    } catch (RuntimeException | Error e) {
      stack.closeAfter(e);
      throw e;
    }
  }

  /**
   * Dev mode for a bench worker: on the real dev server of {@code temporalServer}, its database in
   * {@code dir}, or, when empty, on the SDK's test server in this JVM.
   */
  static DevMode devMode(WorkerConfig config, Optional<Path> temporalServer, Path dir) {
    return temporalServer.isPresent()
        ? DevMode.start(LoopbackPorts.freePort(), config, dir,
            new TemporalDevServer.Lookup(temporalServer, "given by --temporal-server"))
        : DevMode.start(LoopbackPorts.freePort(), config);
  }

  /** What the report says of the Temporal a run's worlds use. */
  static String describeTemporal(Optional<Path> temporalServer) {
    return temporalServer.map(p -> "dev server " + TemporalDevServer.CLI_VERSION + " (" + p
        + "), default settings, SQLite in the world's folder").orElse("the SDK's test server, in the bench's JVM");
  }

  WorkflowClient client() {
    return dev.worker().temporal().client();
  }

  /** Waits until a created workflow's copy is done and its streams replicate. */
  void awaitCopied(CreatedWorkflow workflow) {
    CopyWaiter.awaitCopied(services, workflow, COPY_TIMEOUT);
  }

  @Override
  public void close() {
    try {
      stack.close();
    } catch (RuntimeException e) {
      // a benchmark's figures are taken by now; a server that stops badly must not lose them
      System.err.println("bench: stopping a part of the world failed: " + e);
    }
  }
}
