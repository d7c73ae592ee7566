package io.pointsman.bench;

import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.Services;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.Folders;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxOptions;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.RouterOptions;
import io.pointsman.sandbox.streams.StreamRunner;
import io.pointsman.sandbox.streams.StreamRunnerOptions;
import io.pointsman.worker.DevMode;
import io.pointsman.worker.WorkerConfig;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.UnaryOperator;

/**
 * What a benchmark runs on: a sandbox of its own (etcd and the MariaDB primaries, in a fresh data
 * folder that is deleted at the end), the stream runner, dev mode (Temporal's test server in this
 * process and a real pointsman worker against it), a router, and the services the direct executor
 * calls. Closing it stops everything in reverse order.
 */
final class BenchWorld implements AutoCloseable {
  private static final Duration COPY_TIMEOUT = Duration.ofMinutes(5);

  final Path dataDir;
  final Sandbox sandbox;
  final DevMode dev;
  final Services services;
  final Router router;
  private final Deque<AutoCloseable> opened;

  private BenchWorld(Path dataDir, Sandbox sandbox, DevMode dev, Services services, Router router,
      Deque<AutoCloseable> opened) {
    this.dataDir = dataDir;
    this.sandbox = sandbox;
    this.dev = dev;
    this.services = services;
    this.router = router;
    this.opened = opened;
  }

  /**
   * @param shape narrows or widens the sandbox (which primaries, extra tables); the data folder,
   *     ports and etcd are the world's own
   */
  static BenchWorld start(UnaryOperator<SandboxOptions.Builder> shape) {
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    Path dataDir = createDataDir();
    opened.push(() -> Folders.deleteTree(dataDir));
    try {
      Sandbox sandbox = Sandbox.up(shape.apply(SandboxOptions.builder()
          .dataDir(dataDir)
          .basePort(0)
          .etcdPorts(0, 0)
          .stopOnJvmExit(true)).build());
      opened.push(sandbox);
      opened.push(StreamRunner.start(StreamRunnerOptions.builder()
          .topology(sandbox.store())
          .mysqlCredentials(sandbox.options().credentials().user(), sandbox.options().credentials().password())
          .pollInterval(Duration.ofMillis(100))
          .heartbeatInterval(Duration.ofMillis(500))
          .build()));
      DevMode dev = DevMode.start(freePort(), new WorkerConfig(TemporalOptions.builder().build(),
          EtcdOptions.builder().endpoints(sandbox.etcdEndpoint()).build(), sandbox.options().topoPaths(),
          sandbox.mysqlOptions(), 0, Duration.ofSeconds(10)));
      opened.push(dev);
      Services services = new Services(sandbox.etcdClient(), sandbox.options().topoPaths(), sandbox.mysqlOptions());
      opened.push(services);
      Router router = Router.start(RouterOptions.builder()
          .store(sandbox.store())
          .mysqlUser(sandbox.options().credentials().user())
          .mysqlPassword(sandbox.options().credentials().password())
          .build());
      opened.push(router);
      if (!router.awaitTopology(Duration.ofSeconds(30))) {
        throw new IllegalStateException("the router did not read the topology within 30s");
      }
      return new BenchWorld(dataDir, sandbox, dev, services, router, opened);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeAll(opened);
      throw new IllegalStateException("interrupted while the bench world started", e);
    } catch (RuntimeException e) {
      closeAll(opened);
      throw e;
    }
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
    closeAll(opened);
  }

  private static void closeAll(Deque<AutoCloseable> opened) {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        System.err.println("bench: stopping a part of the world failed: " + e);
      }
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  private static Path createDataDir() {
    try {
      return Files.createTempDirectory("pointsman-bench");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the bench's data folder", e);
    }
  }

}
