package io.pointsman.e2e;

import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.pointsman.activities.CleanupActivitiesImpl;
import io.pointsman.activities.FailoverToolActivitiesImpl;
import io.pointsman.activities.JournalActivitiesImpl;
import io.pointsman.activities.LockActivitiesImpl;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.request.PlainInputConverter;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.vtorc.FailoverToolCheck;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.validate.EndedExecutions;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.sandbox.cluster.CopyWaiter;
import io.pointsman.sandbox.cluster.CreatedWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.Ports;
import io.pointsman.sandbox.cluster.ReshardSpec;
import io.pointsman.sandbox.cluster.Sandbox;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.pointsman.sandbox.router.Router;
import io.pointsman.sandbox.stack.SandboxStack;
import io.pointsman.sandbox.streams.StreamRunner;
import io.pointsman.worker.SearchAttributeSetup;
import io.pointsman.worker.TemporalDevServer;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A whole pointsman world for end-to-end tests: a {@link SandboxStack} (its own MariaDB primaries,
 * topology under a fresh root of the test etcd or of an etcd of its own, the stream runner, a
 * router on demand), and a Temporal (the SDK's test environment, or a real dev server) whose worker
 * runs pointsman's workflows and real activities.
 */
final class SwitchWorld implements AutoCloseable {
  /** How long a created workflow's copy may take before its streams replicate. */
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(90);

  final Sandbox sandbox;
  final Client etcd;
  final TopoPaths paths;
  final StreamRunner runner;
  final Services services;
  /** The SDK's test server, or null when the world runs on a real Temporal server. */
  final TestWorkflowEnvironment env;
  /** The real Temporal server the world's worker polls, or null on the test server. */
  final TemporalDevServer realServer;
  private final TemporalConnection realConnection;
  private final SwitchActivities switchActivities;
  private final CleanupActivities cleanupActivities;
  private WorkerFactory realFactory;
  Worker worker;
  /** The oracle of the failure tests: every invariant of the topology, and the state it is in. */
  final TopologyValidator validator;
  private final List<AutoCloseable> extras = new ArrayList<>();
  /** The sandbox, its stream runner and data folder, and what the world opened on them, closed in reverse. */
  private final SandboxStack stack;
  /** What the worker's VTORC_ADDRESSES would be: none, until a test points the world at a VTOrc. */
  volatile List<String> vtorcAddresses = List.of();

  private SwitchWorld(SandboxStack stack, UnaryOperator<SwitchActivities> switchWrapper,
      UnaryOperator<CleanupActivities> cleanupWrapper, TemporalDevServer real) {
    this.stack = stack;
    this.sandbox = stack.sandbox();
    this.runner = stack.runner();
    this.paths = sandbox.options().topoPaths();
    this.etcd = stack.open(TestEtcd.client(sandbox.etcdEndpoint()));
    this.services = stack.open(new Services(etcd, paths, sandbox.mysqlOptions()));
    this.validator = new TopologyValidator(etcd, paths, services);
    this.switchActivities = switchWrapper.apply(new SwitchActivitiesImpl(services));
    this.cleanupActivities = cleanupWrapper.apply(new CleanupActivitiesImpl(services));
    this.realServer = real;
    if (real == null) {
      TestEnvironmentOptions.Builder options = TestEnvironmentOptions.newBuilder()
          .setWorkerFactoryOptions(factoryOptions())
          .setWorkflowClientOptions(WorkflowClientOptions.newBuilder()
              .setDataConverter(PlainInputConverter.dataConverter()).build());
      for (var key : Pointsman.SEARCH_ATTRIBUTES) {
        options.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      this.env = stack.open(TestWorkflowEnvironment.newInstance(options.build()));
      this.realConnection = null;
      this.worker = env.newWorker(Pointsman.TASK_QUEUE);
      register(worker);
      env.start();
    } else {
      this.env = null;
      this.realConnection = stack.open(
          TemporalConnection.lazy(TemporalOptions.builder().address(real.address()).build(), null));
      startWorker();
    }
  }

  private static WorkerFactoryOptions factoryOptions() {
    return WorkerFactoryOptions.newBuilder().setWorkerInterceptors(WorkflowRegistration.interceptors()).build();
  }

  private void register(Worker w) {
    WorkflowRegistration.registerWorkflows(w);
    w.registerActivitiesImplementations(switchActivities, cleanupActivities,
        new LockActivitiesImpl(services.locks()),
        new FailoverToolActivitiesImpl(new FailoverToolCheck(() -> vtorcAddresses, Duration.ofSeconds(5))),
        new JournalActivitiesImpl(services));
  }

  /** On the real server: a new worker (factory) polling the task queue, as a restarted worker process would. */
  void startWorker() {
    requireReal();
    // what PointsmanWorker does at its start: the real server has none of pointsman's attributes at
    // first; it also waits out the connection's reconnect backoff after a server restart
    SearchAttributeSetup.ensure(realConnection, Duration.ofMinutes(1));
    realFactory = WorkerFactory.newInstance(realConnection.client(), factoryOptions());
    worker = realFactory.newWorker(Pointsman.TASK_QUEUE);
    register(worker);
    realFactory.start();
  }

  /**
   * On the real server: the worker stops at once, as a killed one would for Temporal (its running
   * activities are interrupted, nothing is reported; Temporal learns of it by their timeouts).
   */
  void stopWorker() {
    requireReal();
    realFactory.shutdownNow();
    realFactory.awaitTermination(10, TimeUnit.SECONDS);
  }

  private void requireReal() {
    if (realServer == null) {
      throw new IllegalStateException("only a world on a real Temporal server starts and stops its worker");
    }
  }

  /** MoveTables world: commerce/0 and customer/-80,80- only. */
  static SwitchWorld moveTables() {
    return start(true, UnaryOperator.identity());
  }

  static SwitchWorld start(boolean moveTablesOnly, UnaryOperator<SwitchActivities> switchWrapper) {
    return start(moveTablesOnly, SandboxShape.DEFAULT, false, switchWrapper);
  }

  static SwitchWorld start(boolean moveTablesOnly, SandboxShape shape, UnaryOperator<SwitchActivities> switchWrapper) {
    return start(moveTablesOnly, shape, false, switchWrapper);
  }

  /**
   * A world whose sandbox starts an etcd of its own, which a test may stop and start again
   * ({@link Sandbox#stopEtcd}) without taking the shared test etcd from other suites.
   */
  static SwitchWorld startWithOwnEtcd(boolean moveTablesOnly, UnaryOperator<SwitchActivities> switchWrapper) {
    return start(moveTablesOnly, SandboxShape.DEFAULT, true, switchWrapper);
  }

  /** A world whose switch and cleanup activities (Complete's and Cancel's steps) both go through {@code faults}. */
  static SwitchWorld start(boolean moveTablesOnly, FaultInjection faults) {
    return start(moveTablesOnly, SandboxShape.DEFAULT, faults);
  }

  static SwitchWorld start(boolean moveTablesOnly, SandboxShape shape, FaultInjection faults) {
    return start(moveTablesOnly, shape, false, faults, faults::cleanup, null);
  }

  private static SwitchWorld start(boolean moveTablesOnly, SandboxShape shape, boolean ownEtcd,
      UnaryOperator<SwitchActivities> switchWrapper) {
    return start(moveTablesOnly, shape, ownEtcd, switchWrapper, UnaryOperator.identity(), null);
  }

  /** Every way to start a world; {@code server} null for the SDK's in-process test server. */
  static SwitchWorld start(boolean moveTablesOnly, SandboxShape shape, boolean ownEtcd,
      UnaryOperator<SwitchActivities> switchWrapper, UnaryOperator<CleanupActivities> cleanupWrapper,
      TemporalDevServer server) {
    // a fresh topology root: worlds on the shared test etcd must not see each other's keys
    String root = "/pointsman-e2e/" + UUID.randomUUID();
    SandboxStack stack = SandboxStack.in("pointsman-e2e").sandbox(b -> {
      b.basePort(Ports.spreadBasePort()).topologyRoots(root + "/global", root).shape(shape);
      if (ownEtcd) {
        b.etcdPorts(0, 0);
      } else {
        b.etcdEndpoint(TestServices.etcdEndpoint());
      }
      return moveTablesOnly ? b.withoutReshardTargets() : b;
    }).start();
    try {
      return new SwitchWorld(stack, switchWrapper, cleanupWrapper, server);
    } catch (RuntimeException | Error e) {
      stack.closeAfter(e);
      throw e;
    }
  }

  TopologyStore store() {
    return services.store();
  }

  WorkflowClient client() {
    return env != null ? env.getWorkflowClient() : realConnection.client();
  }

  <T> T workflow(Class<T> type, String id) {
    return client().newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE)
        .setWorkflowId(id).setWorkflowExecutionTimeout(Duration.ofMinutes(10)).build());
  }

  /** Creates commerce2customer and waits until its copy finished and its streams run. */
  CreatedWorkflow createMoveTables() {
    return createMoveTables(MoveTablesSpec.sandbox());
  }

  /** Creates a MoveTables workflow and waits until its copy finished and its streams run. */
  CreatedWorkflow createMoveTables(MoveTablesSpec spec) {
    CreatedWorkflow wf = sandbox.moveTablesCreator().create(spec);
    CopyWaiter.awaitCopied(services, wf, COPY_TIMEOUT);
    return wf;
  }

  CreatedWorkflow createReshard() {
    CreatedWorkflow wf = sandbox.reshardCreator().create(ReshardSpec.sandbox());
    CopyWaiter.awaitCopied(services, wf, COPY_TIMEOUT);
    return wf;
  }

  /**
   * Waits until every stream of the workflow on the keyspace's primaries runs again (after a
   * compensation restarted them, or a switch started its reverse).
   */
  void awaitStreamsRunning(String keyspace, String workflow) {
    // a primary just restarted fails the first use of a pooled connection from before, once
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsMatching(e -> e instanceof PointsmanException pe && pe.code() == ErrorCode.UNAVAILABLE)
        .until(() -> {
          int found = 0;
          for (String shard : store().listShards(keyspace)) {
            for (Stream st : services.streams().read(services.primaries().resolve(keyspace, shard), workflow)) {
              found++;
              if (st.state() != StreamState.RUNNING || st.copyPending()) {
                return false;
              }
            }
          }
          return found > 0;
        });
  }

  /**
   * The validator names no broken invariant of the workflow and finds it in {@code state} (e.g.
   * ALL_SWITCHED). Lock keys are checked against Temporal: one held for an execution that has ended
   * is left behind, whatever its lease says.
   */
  ValidationReport assertDefinedState(String targetKeyspace, String workflow, String state) {
    return ValidatorChecks.assertDefined(validator.validate(targetKeyspace, workflow, endedExecutions()), state);
  }

  /**
   * Asks this world's Temporal whether the execution a lock value names has ended.
   */
  EndedExecutions endedExecutions() {
    return TemporalEndedExecutions.of(client());
  }

  /** The workflow's state as Vitess words it, read now (e.g. "All Reads Switched. Writes Switched"). */
  String workflowState(String targetKeyspace, String workflow) {
    SwitchActivitiesImpl reader = new SwitchActivitiesImpl(services);
    return reader.getWorkflowState(reader.buildTrafficSwitcher(targetKeyspace, workflow), List.of()).summary();
  }

  /**
   * Waits until the workflow's code has seen its cancellation: a workflow task started after
   * Temporal recorded the request. While a local step runs, that is when the SDK renews the task
   * (at 80% of its 10 s timeout), which hands the workflow the events that came meanwhile; the local
   * step itself is not told and runs to its end, and the workflow acts on the cancellation then.
   */
  void awaitCancellationSeen(WorkflowStub stub) {
    String id = stub.getExecution().getWorkflowId();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
      boolean requested = false;
      for (HistoryEvent e : client().fetchHistory(id).getEvents()) {
        if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED) {
          requested = true;
        } else if (requested && e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
          return true;
        }
      }
      return false;
    });
  }

  Router router() {
    return stack.router();
  }

  void onClose(AutoCloseable c) {
    extras.add(c);
  }

  /**
   * Closes what the test added, stops the worker, then the stack: Temporal, the clients, the
   * stream runner, the sandbox, and last its data folder (about 0.5 GB a world; a full run starts
   * some forty worlds), which goes also when something before it fails to close.
   */
  @Override
  public void close() throws Exception {
    try {
      for (AutoCloseable c : extras) {
        c.close();
      }
      if (realFactory != null) {
        realFactory.shutdownNow();
        realFactory.awaitTermination(10, TimeUnit.SECONDS);
      }
    } catch (Exception | Error e) {
      stack.closeAfter(e);
      throw e;
    }
    stack.close();
  }
}
