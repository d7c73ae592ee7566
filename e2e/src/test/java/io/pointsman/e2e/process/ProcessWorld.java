package io.pointsman.e2e.process;

import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.pointsman.e2e.ValidatorChecks;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.EtcdReads;
import io.pointsman.e2e.TemporalEndedExecutions;
import io.pointsman.e2e.TrafficStates;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.Ports;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.stack.SandboxStack;
import io.pointsman.worker.TemporalDevServer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's MoveTables world with pointsman running out of process: this JVM serves Temporal
 * (the SDK's test server on a port, or starts the real dev server as a child process) and, in a
 * {@link SandboxStack}, etcd roots, the MariaDB primaries, the stream runner and the router, but
 * runs no pointsman worker. Workflows and activities run only in {@link WorkerProcess}es
 * it starts, every one of which it stops on close.
 */
final class ProcessWorld implements AutoCloseable {
  static final String WORKFLOW = "commerce2customer";
  static final String TARGET = "customer";
  static final String SOURCE = "commerce";
  static final String ALL_SWITCHED = TrafficStates.ALL_SWITCHED;
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(90);
  private static final Logger log = LoggerFactory.getLogger(ProcessWorld.class);

  final Sandbox sandbox;
  final Client etcd;
  final TopoPaths paths;
  final Services services;
  final TopologyValidator validator;
  final String taskQueue = "pointsman-process-" + UUID.randomUUID();
  /** The sandbox (in its folder's {@code sandbox/}), the stream runner, Temporal and the clients; closed in reverse. */
  private final SandboxStack stack;
  private final String temporalAddress;
  private final WorkflowClient client;
  /** Their output is kept in the module's target folder for a look after a failure. */
  private final WorkerProcesses workers;

  private ProcessWorld(SandboxStack stack, Path workerJar, boolean realTemporal) {
    this.stack = stack;
    this.sandbox = stack.sandbox();
    this.paths = sandbox.options().topoPaths();
    this.etcd = stack.open(TestEtcd.client());
    this.services = stack.open(new Services(etcd, paths, sandbox.mysqlOptions()));
    this.validator = new TopologyValidator(etcd, paths, services);
    if (realTemporal) {
      TemporalDevServer server = stack.open(
          TemporalDevServer.start(Path.of(TestServices.temporalBinary()), stack.dir().resolve("temporal")));
      this.temporalAddress = server.address();
    } else {
      int port = LoopbackPorts.freePort();
      stack.open(TestServer.createPortBoundServer(port));
      this.temporalAddress = "127.0.0.1:" + port;
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporalAddress).build());
    stack.open(stubs::shutdownNow);
    this.client = WorkflowClient.newInstance(stubs);
    this.workers = new WorkerProcesses(workerJar,
        Path.of("target", "process-e2e-logs", stack.dir().getFileName().toString()).toAbsolutePath());
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
    // a fresh topology root: worlds on the shared test etcd must not see each other's keys
    String root = "/pointsman-process-e2e/" + UUID.randomUUID();
    SandboxStack stack = SandboxStack.in("pointsman-process-e2e").sandboxSubfolder("sandbox")
        .sandbox(b -> b.basePort(Ports.spreadBasePort())
            .etcdEndpoint(TestServices.etcdEndpoint())
            .topologyRoots(root + "/global", root)
            .withoutReshardTargets())
        .start();
    ProcessWorld world;
    try {
      world = new ProcessWorld(stack, jar, realTemporal);
    } catch (RuntimeException | Error e) {
      stack.closeAfter(e);
      throw e;
    }
    try {
      stack.router();
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
    Map<String, String> env = workerEnv();
    env.putAll(extraEnv);
    return workers.start(env);
  }

  private Map<String, String> workerEnv() {
    Map<String, String> env = WorkerProcesses.withSandboxMysql(WorkerProcesses.env(temporalAddress, taskQueue),
        sandbox.options().credentials().user(), sandbox.options().credentials().password());
    env.put("ETCD_ENDPOINTS", TestServices.etcdEndpoint());
    env.put("TOPO_GLOBAL_ROOT", paths.globalRoot());
    env.put("TOPO_CELL_ROOT_PREFIX", paths.cellRootPrefix());
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
    return ValidatorChecks.assertDefined(validate(), state);
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
    return stack.router();
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
    List<String> keys = new ArrayList<>();
    for (KeyValue kv : EtcdReads.under(etcd, TopoPaths.locksPrefix(dir))) {
      keys.add(kv.getKey().toString(StandardCharsets.UTF_8));
    }
    return keys;
  }

  /** The newest create revision (fencing token) among the switch's lock keys; 0 when none. */
  long newestLockRevision() throws Exception {
    long newest = 0;
    for (String d : lockDirs()) {
      for (KeyValue kv : EtcdReads.under(etcd, TopoPaths.locksPrefix(d))) {
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
    CopyWaiter.awaitCopied(services, sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox()), COPY_TIMEOUT);
  }

  /** The last lines of every worker's output, for a failure message. */
  String workerLogs() {
    return workers.tails();
  }

  /** Stops the workers, then the stack: the router, Temporal, the clients, the stream runner, the sandbox, its folder. */
  @Override
  public void close() throws Exception {
    // first, so no worker writes while the sandbox goes down
    workers.close();
    stack.close();
  }
}
