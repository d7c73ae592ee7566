package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.e2e.ValidatorChecks;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.TemporalEndedExecutions;
import io.pointsman.e2e.process.Outcome;
import io.pointsman.e2e.process.WorkerProcess;
import io.pointsman.e2e.process.WorkerProcesses;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.sandbox.cluster.Folders;
import io.pointsman.worker.TemporalDevServer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S10 of docs/failure-scenarios.md on a real Vitess 24 cluster: pointsman's worker, a real process
 * (the packaged jar, POINTSMAN_PRIMARY_BACKEND=tablet) on the real Temporal dev server, is SIGKILLed
 * while its write switch of a vtctldclient-created MoveTables is inside the write window, at points it
 * provably reached; a worker started afterwards must bring the switch to a defined end. Defined means:
 * the workflow completes (or, before the journal, fails having rolled back), pointsman's validator is
 * silent, no lock key is left in etcd, and vtctldclient's {@code MoveTables status} names the same
 * traffic state as pointsman.
 *
 * <p>Each point is held open by {@link TabletFenceBlocker}: the dying worker's fence raise, an
 * ExecuteFetchAsDba through the shard primary's vttablet, waits inside that primary's MariaDB for a
 * {@code _pointsman.lock_fence} row this test holds. Cases share one cluster; each starts from reads
 * switched and writes not, and a finished switch is put back by a ReverseTraffic of writes.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class WorkerKilledOnVitessTest {
  private static final Logger log = LoggerFactory.getLogger(WorkerKilledOnVitessTest.class);
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";
  private static final String SOURCE = "commerce";
  private static final String ALL_SWITCHED = "All Reads Switched. Writes Switched";
  private static final String READS_SWITCHED = "All Reads Switched. Writes Not Switched";

  /** The cluster alone: pointsman's workers here are processes on the real dev server. */
  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> {
    WorkerProcess.packagedJar(); // no cluster started for a test that cannot run: the worker must be packaged
    return MoveTablesCluster.start(WORKFLOW);
  }).withoutWorker();

  private static VitessCluster cluster;
  private static TemporalDevServer temporal;
  private static Client etcd;
  private static Services services;
  private static TopologyValidator validator;
  private static WorkflowClient client;
  private static final String TASK_QUEUE = "pointsman-vitess-kill-" + UUID.randomUUID();
  private static WorkerProcesses workers;
  /** The worker polling between cases; each case kills it and leaves its successor polling. */
  private static WorkerProcess polling;

  /** Where the first worker dies: waiting on a tablet's fence after {@code passes} fenced changes there. */
  enum KillPoint {
    /** The topology denies writes on the source; its primary has not been told yet (its first fenced change). */
    STOP_SOURCE_WRITES(100, 0, false),
    /**
     * Before the journal: source writes stopped, positions gathered; giving customer/-80's stream the
     * source position as its stop position, its first fenced change (80-'s may be stopped already).
     */
    WAIT_FOR_CATCHUP(200, 0, true),
    /**
     * Past the point of no return: the journal is on commerce/0, the target streams are stopped;
     * allowing writes on customer/-80 (its first fenced change after the journal, past the stop
     * position and the stop for cutover of waitForCatchup), routing unchanged.
     */
    AFTER_CREATE_JOURNALS(200, 2, true);

    /** The tablet whose primary's fence holds the worker: commerce/0 (100) or customer/-80 (200). */
    final int tablet;
    /** Fenced changes on that primary to let through before the one the worker dies in. */
    final int passes;
    /**
     * Whether only finishing the switch is defined: past the journal always; in waitForCatchup too,
     * as in the sandbox (the replacement restarts the streams the dead pass stopped for cutover).
     */
    final boolean mustFinish;

    KillPoint(int tablet, int passes, boolean mustFinish) {
      this.tablet = tablet;
      this.passes = passes;
      this.mustFinish = mustFinish;
    }
  }

  @BeforeAll
  static void up() throws Exception {
    cluster = VITESS.cluster();
    Path temporalDir = Files.createTempDirectory("vitess-kill-temporal");
    VITESS.open("Temporal's folder", () -> Folders.deleteTree(temporalDir));
    temporal = VITESS.open("the Temporal dev server",
        TemporalDevServer.start(Path.of(TestServices.temporalBinary()), temporalDir));
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporal.address()).build());
    VITESS.open("the Temporal client", stubs::shutdownNow);
    client = WorkflowClient.newInstance(stubs);
    etcd = VITESS.open("the etcd client", TestEtcd.client(cluster.env("POINTSMAN_VITESS_ETCD")));
    // the test reads the primaries through vttablet as the worker does; it has no MySQL account there
    services = VITESS.open("the services", new Services(etcd, TopoPaths.defaults(),
        MySqlOptions.builder().user("vt_dba").password("unused").build(), TabletRpcOptions.DEFAULTS,
        PrimaryBackend.TABLET));
    validator = new TopologyValidator(etcd, TopoPaths.defaults(), services);
    // closed first: no worker may act on the cluster while it goes down
    workers = VITESS.open("the worker processes", new WorkerProcesses(WorkerProcess.packagedJar(),
        Path.of("target", "vitess-kill-logs", UUID.randomUUID().toString()).toAbsolutePath()));
    polling = startWorker();
    // reads first, as Vitess wants them before writes
    ActionResult reads = workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC).switchTraffic(
        SwitchTrafficRequest.of(WORKFLOW, TARGET).withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
    log.info("reads switched: {}", reads.currentState());
    assertAgreed("READS_SWITCHED", READS_SWITCHED);
  }

  @AfterEach
  void noLockKeysLeft() throws Exception {
    assertThat(lockKeys()).as("lock keys left in etcd").isEmpty();
  }

  @ParameterizedTest
  @EnumSource(KillPoint.class)
  void aSwitchWhoseWorkerIsKilledInTheWriteWindowEndsDefinedForPointsmanAndVtctld(KillPoint point) throws Exception {
    long started = System.nanoTime();
    assertAgreed("READS_SWITCHED", READS_SWITCHED);
    SwitchTrafficWorkflow wf = workflow(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    WorkerProcess a = polling;
    try (TabletFenceBlocker fence = TabletFenceBlocker.hold(cluster, cluster.tablet(point.tablet),
        services.tabletPorts().fence(), firstFenceResource())) {
      WorkflowClient.start(wf::switchTraffic, writesOnly());
      awaitWaiting(fence);
      for (int i = 0; i < point.passes; i++) {
        fence.passOne();
        awaitWaiting(fence);
      }
      assertReached(point);
      assertThat(lockKeys()).as("the locks the dying worker holds").isNotEmpty();
      a.kill();
      polling = null;
      // an observation for the log: whether vttablet still runs the dead client's statement
      log.info("{}: right after the kill: {}", point, fence.diagnostics());
    }
    // The dead worker's raise stays queued on vttablet's own MariaDB connection: vttablet ends it
    // neither when its client dies nor when the call's 30 s deadline passes (seen still waiting 40 s
    // after the kill). Freed, it commits the dead worker's token, and greatest() keeps that from
    // lowering a row the replacement (attached to the same lock keys) raised meanwhile.
    WorkerProcess b = startWorker();
    polling = b;

    Outcome outcome = Outcome.of(stub);
    log.info("{}: after the kill the switch {}; steps: {}", point, outcome, Outcome.steps(wf.progress()));
    if (point.mustFinish) {
      assertThat(outcome.switched()).as(point + ": only finishing the switch is defined here: " + outcome
          + workerLogs()).isTrue();
    }
    if (outcome.switched()) {
      assertThat(outcome.result().currentState()).isEqualTo(ALL_SWITCHED);
      assertThat(wf.progress().steps()).noneMatch(s -> s.status() == StepStatus.COMPENSATED);
      assertAgreed("ALL_SWITCHED", ALL_SWITCHED);
      assertThat(routedToSource()).isFalse();
      awaitStreams(SOURCE, WORKFLOW + "_reverse", "Running");
    } else {
      assertThat(outcome.failure()).as(workerLogs()).contains("rolled back");
      assertAgreed("READS_SWITCHED", READS_SWITCHED);
      assertThat(routedToSource()).isTrue();
      awaitStreams(TARGET, WORKFLOW, "Running");
    }
    assertThat(lockKeys()).as("lock keys after the switch ended").isEmpty();
    // writes through vtgate reach whichever side routing names
    long id = 800 + point.ordinal();
    cluster.execute(TARGET, "insert into customer(customer_id, email) values (" + id + ", 'killed@example.com')");
    assertThat(cluster.query(TARGET, "select email from customer where customer_id = " + id))
        .containsExactly(List.of("killed@example.com"));

    if (outcome.switched()) {
      ActionResult r = workflow(ReverseTrafficWorkflow.class, Pointsman.REVERSE_TRAFFIC).reverseTraffic(writesOnly());
      log.info("writes reversed: {}", r.currentState());
      awaitStreams(TARGET, WORKFLOW, "Running");
    }
    assertAgreed("READS_SWITCHED", READS_SWITCHED);
    log.info("{} took {} ms", point, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private static SwitchTrafficRequest writesOnly() {
    return SwitchTrafficRequest.of(WORKFLOW, TARGET).withTabletTypes(List.of(TabletType.PRIMARY));
  }

  /**
   * The fence row a write switch claims first on a shard: its lock resources in the order the fence
   * sorts them (the named lock's directory sorts before the keyspaces' and shards').
   */
  private static String firstFenceResource() {
    TopoPaths paths = TopoPaths.defaults();
    return List.of(paths.namedLockDir(Pointsman.namedLock(TARGET, WORKFLOW)), paths.keyspaceDir(SOURCE),
        paths.keyspaceDir(TARGET)).stream().sorted().findFirst().orElseThrow();
  }

  private static void awaitWaiting(TabletFenceBlocker fence) {
    try {
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(fence::someoneWaits);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the worker never waited for the fence\n" + fence.diagnostics() + workerLogs(), e);
    }
  }

  /** What the outside sees at each point; a wrong one means the fence stopped another step. */
  private static void assertReached(KillPoint point) {
    boolean sourceDenied = !services.store().getRequired(services.store().keys().shard(SOURCE, "0")).value()
        .deniedTables(TabletType.PRIMARY).isEmpty();
    boolean journal = journalWritten();
    ShardRef target = new ShardRef(TARGET, "-80");
    List<StreamState> streams = services.primary(target).streams().read(target, WORKFLOW).stream()
        .map(Stream::state).toList();
    log.info("{} reached: source denied in topology {}, journal {}, {} streams {}", point, sourceDenied, journal,
        target, streams);
    assertThat(sourceDenied).as("writes denied on the source in the topology").isTrue();
    assertThat(routedToSource()).as("routing still points at the source").isTrue();
    assertThat(journal).as("journal on " + SOURCE + "/0").isEqualTo(point == KillPoint.AFTER_CREATE_JOURNALS);
    assertThat(streams).as(target + "'s stream: stopped for cutover only past waitForCatchup")
        .containsExactly(point == KillPoint.AFTER_CREATE_JOURNALS ? StreamState.STOPPED : StreamState.RUNNING);
  }

  private static boolean journalWritten() {
    long migrationId = new SwitchActivitiesImpl(services).buildTrafficSwitcher(TARGET, WORKFLOW).migrationId();
    ShardRef source = new ShardRef(SOURCE, "0");
    return services.primary(source).journals().read(source, migrationId).isPresent();
  }

  /** Whether the routing rules still send the moved tables to the source keyspace. */
  private static boolean routedToSource() {
    Map<String, List<String>> rules = services.store().getRequired(services.store().keys().routingRules()).value()
        .asMap();
    return List.of(SOURCE + ".customer").equals(rules.get("customer"))
        && List.of(SOURCE + ".corder").equals(rules.get("corder"));
  }

  /** pointsman's validator finds {@code state} and nothing wrong, and vtctldclient reports {@code vtctldState}. */
  private static void assertAgreed(String state, String vtctldState) {
    ValidatorChecks.assertDefined(validator.validate(TARGET, WORKFLOW, TemporalEndedExecutions.of(client)), state);
    JsonNode status = cluster.vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", TARGET,
        "status", "--format", "json");
    assertThat(status.path("traffic_state").asText()).as(status.toString()).isEqualTo(vtctldState);
  }

  /** Waits until vtctld shows every stream of {@code workflow} in {@code keyspace} in {@code state}. */
  private static void awaitStreams(String keyspace, String workflow, String state) {
    try {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
        List<JsonNode> streams = cluster.moveTablesStreams(keyspace, workflow);
        return !streams.isEmpty() && streams.stream().allMatch(s -> s.path("state").asText().equals(state));
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("streams of " + keyspace + "." + workflow + " not all " + state + ": "
          + cluster.moveTablesStreams(keyspace, workflow), e);
    }
  }

  /** Every lock key (pointsman's or Vitess's) under the cluster's topology roots. */
  private static List<String> lockKeys() throws Exception {
    ByteSequence prefix = ByteSequence.from("/vitess/", StandardCharsets.UTF_8);
    List<String> keys = new ArrayList<>();
    for (KeyValue kv : etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).withKeysOnly(true).build())
        .get(30, TimeUnit.SECONDS).getKvs()) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (key.contains("/locks/")) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static <T> T workflow(Class<T> type, String action) {
    String id = Pointsman.workflowId(action, TARGET, WORKFLOW) + "-" + UUID.randomUUID();
    return client.newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(TASK_QUEUE).setWorkflowId(id)
        .setWorkflowExecutionTimeout(Duration.ofMinutes(10)).build());
  }

  private static WorkerProcess startWorker() throws Exception {
    Map<String, String> env = WorkerProcesses.env(temporal.address(), TASK_QUEUE);
    env.put("ETCD_ENDPOINTS", cluster.env("POINTSMAN_VITESS_ETCD"));
    env.put("POINTSMAN_PRIMARY_BACKEND", "tablet");
    // required by the configuration; with the tablet backend the worker opens no MySQL connection
    env.put("MYSQL_USER", "vt_dba");
    return workers.start(env);
  }

  private static String workerLogs() {
    return workers.tails();
  }
}
