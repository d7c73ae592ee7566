package io.pointsman.e2e.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.TemporalEndedExecutions;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxOptions;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.router.RouterOptions;
import io.pointsman.sandbox.streams.StreamRunner;
import io.pointsman.sandbox.streams.StreamRunnerOptions;
import io.pointsman.worker.TemporalDevServer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's MoveTables world with pointsman running out of process: this JVM serves Temporal
 * (the SDK's test server on a port, or starts the real dev server as a child process), etcd roots, the MariaDB primaries, the stream runner and the
 * router, but runs no pointsman worker. Workflows and activities run only in {@link WorkerProcess}es
 * it starts, every one of which it stops on close.
 */
final class ProcessWorld implements AutoCloseable {
  static final String WORKFLOW = "commerce2customer";
  static final String TARGET = "customer";
  static final String SOURCE = "commerce";
  static final String ALL_SWITCHED = "All Reads Switched. Writes Switched";
  private static final Logger log = LoggerFactory.getLogger(ProcessWorld.class);

  final Sandbox sandbox;
  final Client etcd;
  final TopoPaths paths;
  final Services services;
  final TopologyValidator validator;
  final String taskQueue = "pointsman-process-" + UUID.randomUUID();
  /** The sandbox's data, deleted on close. */
  private final Path dir;
  /** The workers' output, kept in the module's target folder for a look after a failure. */
  private final Path logs;
  private final Path workerJar;
  private final String temporalAddress;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
  /** Kills the workers when this JVM ends without closing the world (a surefire timeout); else they poll on forever. */
  private final Thread killWorkersOnExit = new Thread(this::stopWorkers, "process-world-exit");
  private StreamRunner runner;
  private Router router;
  private int workerCount;

  private ProcessWorld(Path dir, Path workerJar, Sandbox sandbox, boolean realTemporal) {
    this.dir = dir;
    this.logs = Path.of("target", "process-e2e-logs", dir.getFileName().toString()).toAbsolutePath();
    this.workerJar = workerJar;
    this.sandbox = sandbox;
    this.paths = sandbox.options().topoPaths();
    this.etcd = TestEtcd.client();
    closeables.add(etcd);
    this.services = new Services(etcd, paths, sandbox.mysqlOptions());
    closeables.add(services);
    this.validator = new TopologyValidator(etcd, paths, services);
    if (realTemporal) {
      TemporalDevServer server = TemporalDevServer.start(Path.of(TestServices.temporalBinary()), dir.resolve("temporal"));
      closeables.add(server);
      this.temporalAddress = server.address();
    } else {
      int port = freePort();
      TestServer.PortBoundTestServer temporal = TestServer.createPortBoundServer(port);
      closeables.add(temporal);
      this.temporalAddress = "127.0.0.1:" + port;
    }
    this.stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporalAddress).build());
    closeables.add(stubs::shutdownNow);
    this.client = WorkflowClient.newInstance(stubs);
    Runtime.getRuntime().addShutdownHook(killWorkersOnExit);
  }

  /**
   * Brings up the sandbox, Temporal, the stream runner and the router; creates commerce2customer and
   * waits for its copy.
   */
  static ProcessWorld start() throws Exception {
    return start(false);
  }

  /**
   * @param realTemporal the Temporal dev server (POINTSMAN_TEMPORAL_BIN) as a child process instead
   *     of the SDK's test server in this JVM
   */
  static ProcessWorld start(boolean realTemporal) throws Exception {
    Path jar = WorkerProcess.packagedJar();
    Path dir = Files.createTempDirectory("pointsman-process-e2e");
    String root = "/pointsman-process-e2e/" + UUID.randomUUID();
    Sandbox sandbox = Sandbox.up(SandboxOptions.builder()
        .dataDir(dir.resolve("sandbox"))
        .basePort(freeBase())
        .etcdEndpoint(TestServices.etcdEndpoint())
        .topologyRoots(root + "/global", root)
        .withoutReshardTargets()
        .stopOnJvmExit(true)
        .build());
    ProcessWorld world;
    try {
      world = new ProcessWorld(dir, jar, sandbox, realTemporal);
    } catch (RuntimeException e) {
      sandbox.close();
      throw e;
    }
    try {
      world.runner = StreamRunner.start(StreamRunnerOptions.builder()
          .topology(sandbox.store())
          .mysqlCredentials(sandbox.options().credentials().user(), sandbox.options().credentials().password())
          .pollInterval(Duration.ofMillis(100))
          .heartbeatInterval(Duration.ofMillis(500))
          .build());
      world.router = Router.start(RouterOptions.builder().store(sandbox.store())
          .mysqlUser(sandbox.options().credentials().user())
          .mysqlPassword(sandbox.options().credentials().password())
          .build());
      world.createMoveTables();
      return world;
    } catch (Exception | Error e) {
      world.close();
      throw e;
    }
  }

  /** Starts another worker process on this world's task queue. */
  WorkerProcess startWorker() throws IOException {
    return startWorker(Map.of());
  }

  /** Starts another worker process on this world's task queue, with {@code extraEnv} added to its environment. */
  WorkerProcess startWorker(Map<String, String> extraEnv) throws IOException {
    String name = "worker-" + (char) ('A' + workerCount++);
    Files.createDirectories(logs);
    Map<String, String> env = workerEnv();
    env.putAll(extraEnv);
    WorkerProcess w = WorkerProcess.start(name, workerJar, env, logs.resolve(name + ".log"));
    workers.add(w);
    return w;
  }

  private Map<String, String> workerEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("POINTSMAN_TASK_QUEUE", taskQueue);
    env.put("ETCD_ENDPOINTS", TestServices.etcdEndpoint());
    env.put("TOPO_GLOBAL_ROOT", paths.globalRoot());
    env.put("TOPO_CELL_ROOT_PREFIX", paths.cellRootPrefix());
    env.put("MYSQL_USER", sandbox.options().credentials().user());
    env.put("MYSQL_PASSWORD", sandbox.options().credentials().password());
    env.put("MYSQL_TLS_MODE", "DISABLED");
    env.put("MYSQL_ALLOW_PUBLIC_KEY_RETRIEVAL", "true");
    env.put("METRICS_PORT", "0");
    env.put("WORKER_SHUTDOWN_GRACE", "5s");
    return env;
  }

  /** A stub of a new run of {@code type}, with an id of its own so reruns never collide. */
  <T> T workflow(Class<T> type, String action) {
    String id = Pointsman.workflowId(action, TARGET, WORKFLOW) + "-" + UUID.randomUUID();
    return client.newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(taskQueue).setWorkflowId(id)
        .setWorkflowExecutionTimeout(Duration.ofMinutes(10)).build());
  }

  /** SwitchTraffic of writes alone; the cases start with reads switched. */
  static SwitchTrafficRequest writesOnly() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET).withTabletTypes(List.of(TabletType.PRIMARY));
  }

  /**
   * Starts a worker and switches reads with it: where the cases start, writes not switched yet (the
   * validator, like Vitess, wants reads before writes).
   */
  WorkerProcess startWorkerAndSwitchReads() throws IOException {
    WorkerProcess w = startWorker();
    switchReads();
    assertDefinedState("READS_SWITCHED");
    return w;
  }

  /** Reads first, as Vitess wants them before writes; run by whichever worker polls. */
  void switchReads() {
    ActionResult r = workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC)
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET).withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
    log.info("reads switched: {}", r.currentState());
  }

  /** Puts writes back on the source, so the next case starts where the last one did. */
  void reverseWrites() {
    ActionResult r = workflow(ReverseTrafficWorkflow.class, Pointsman.REVERSE_TRAFFIC).reverseTraffic(writesOnly());
    log.info("writes reversed: {}", r.currentState());
  }

  /** The validator names no broken invariant and finds the workflow in {@code state}. */
  ValidationReport assertDefinedState(String state) {
    ValidationReport report = validate();
    log.info("validator: {}", report.describe());
    assertThat(report.violations()).as(report.describe()).isEmpty();
    assertThat(report.state()).as(report.describe()).isEqualTo(state);
    return report;
  }

  TopologyStore store() {
    return services.store();
  }

  /** Whether the routing rules still send writes of the moved tables to the source keyspace. */
  boolean routedToSource() {
    Map<String, List<String>> rules = store().getRequired(store().keys().routingRules()).value().asMap();
    return List.of(SOURCE + ".customer").equals(rules.get("customer"))
        && List.of(SOURCE + ".corder").equals(rules.get("corder"));
  }

  Router router() {
    return router;
  }

  /** The validator's report, naming also any lock key still held for a run this server says has ended. */
  ValidationReport validate() {
    return validator.validate(TARGET, WORKFLOW, TemporalEndedExecutions.of(client));
  }

  PrimaryEndpoint primary(String keyspace, String shard) {
    return services.primaries().resolve(keyspace, shard);
  }

  /** The directories the switch locks: its named lock and both keyspaces. */
  List<String> lockDirs() {
    return List.of(paths.namedLockDir(Pointsman.namedLock(TARGET, WORKFLOW)), paths.keyspaceDir(SOURCE),
        paths.keyspaceDir(TARGET));
  }

  /** The lock keys present now under {@code dir}'s {@code locks/}. */
  List<String> lockKeys(String dir) throws Exception {
    ByteSequence prefix = ByteSequence.from(TopoPaths.locksPrefix(dir), StandardCharsets.UTF_8);
    List<String> keys = new ArrayList<>();
    for (KeyValue kv : etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
        .get(30, TimeUnit.SECONDS).getKvs()) {
      keys.add(kv.getKey().toString(StandardCharsets.UTF_8));
    }
    return keys;
  }

  /** The newest create revision (fencing token) among the switch's lock keys; 0 when none. */
  long newestLockRevision() throws Exception {
    long newest = 0;
    for (String d : lockDirs()) {
      ByteSequence prefix = ByteSequence.from(TopoPaths.locksPrefix(d), StandardCharsets.UTF_8);
      for (KeyValue kv : etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
          .get(30, TimeUnit.SECONDS).getKvs()) {
        newest = Math.max(newest, kv.getCreateRevision());
      }
    }
    return newest;
  }

  /**
   * Waits until every forward stream runs again: a switch rolled back must leave the MoveTables
   * replicating, or the target silently falls behind and the next switch cannot catch up.
   */
  void awaitForwardStreamsRunning() {
    try {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
        List<Stream> all = forwardStreams();
        return !all.isEmpty() && all.stream().allMatch(st -> st.state() == StreamState.RUNNING && !st.isFrozen());
      });
    } catch (ConditionTimeoutException e) {
      StringBuilder b = new StringBuilder("forward streams of " + WORKFLOW + " not all running after the rollback:");
      for (String shard : store().listShards(TARGET)) {
        for (Stream st : services.streams().read(primary(TARGET, shard), WORKFLOW)) {
          b.append("\n  ").append(TARGET).append('/').append(shard).append(" stream ").append(st.id()).append(": ")
              .append(st.state()).append(", message '").append(st.message()).append("', pos ").append(st.pos())
              .append(", stop_pos ").append(st.stopPos());
        }
      }
      throw new AssertionError(b.toString(), e);
    }
  }

  private List<Stream> forwardStreams() {
    List<Stream> all = new ArrayList<>();
    for (String shard : store().listShards(TARGET)) {
      all.addAll(services.streams().read(primary(TARGET, shard), WORKFLOW));
    }
    return all;
  }

  /** The steps of a run as one line, {@code name:STATUS} each, for the log. */
  static String steps(Progress progress) {
    StringBuilder b = new StringBuilder();
    for (StepProgress step : progress.steps()) {
      b.append(b.length() == 0 ? "" : ", ").append(step.name()).append(':').append(step.status());
    }
    return b.toString();
  }

  /** Every lock key under the switch's lock directories. */
  List<String> switchLockKeys() throws Exception {
    List<String> keys = new ArrayList<>();
    for (String d : lockDirs()) {
      keys.addAll(lockKeys(d));
    }
    return keys;
  }

  boolean journalWritten() {
    long migrationId = new SwitchActivitiesImpl(services).buildTrafficSwitcher(TARGET, WORKFLOW).migrationId();
    return services.journals().read(primary(SOURCE, "0"), migrationId).isPresent();
  }

  private void createMoveTables() {
    CreatedWorkflow wf = sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox());
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
      for (CreatedWorkflow.Stream s : wf.streams()) {
        Stream st = services.streams().read(primary(wf.targetKeyspace(), s.targetShard()), (int) s.id()).orElseThrow();
        if (st.state() != StreamState.RUNNING || st.copyPending()) {
          return false;
        }
      }
      return true;
    });
  }

  /** The last lines of every worker's output, for a failure message. */
  String workerLogs() {
    StringBuilder b = new StringBuilder();
    for (WorkerProcess w : workers) {
      b.append("\n----- ").append(w.name()).append(" (pid ").append(w.pid()).append(w.isAlive() ? ", alive" : ", gone")
          .append(") -----\n").append(w.tail(40));
    }
    return b.toString();
  }

  /** Stops the worker processes first, so none writes while the sandbox goes down. */
  void stopWorkers() {
    for (WorkerProcess w : workers) {
      try {
        w.close();
      } catch (Exception e) {
        log.warn("could not stop {}", w.name(), e);
      }
    }
  }

  @Override
  public void close() throws Exception {
    stopWorkers();
    try {
      Runtime.getRuntime().removeShutdownHook(killWorkersOnExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs or ran already
    }
    Exception failure = null;
    List<AutoCloseable> order = new ArrayList<>();
    if (router != null) {
      order.add(router);
    }
    if (runner != null) {
      order.add(runner);
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      order.add(closeables.get(i));
    }
    order.add(sandbox);
    order.add(() -> deleteRecursively(dir));
    for (AutoCloseable c : order) {
      try {
        c.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (java.util.stream.Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Base ports spread by test run so that suites on one machine do not collide. */
  private static int freeBase() {
    return 20000 + (int) (ProcessHandle.current().pid() % 200) * 50 + (int) (System.nanoTime() % 40);
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
