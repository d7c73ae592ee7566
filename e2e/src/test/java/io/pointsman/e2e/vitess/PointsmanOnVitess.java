package io.pointsman.e2e.vitess;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.e2e.ValidatorChecks;
import io.pointsman.activities.CleanupActivitiesImpl;
import io.pointsman.activities.FailoverToolActivitiesImpl;
import io.pointsman.activities.JournalActivitiesImpl;
import io.pointsman.activities.LockActivitiesImpl;
import io.pointsman.activities.ShowActivitiesImpl;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.activities.ValidateActivitiesImpl;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.TopologyReport;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.PlainInputConverter;
import io.pointsman.api.request.ShowRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.request.ValidateRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.ShowWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.api.workflows.ValidateTopologyWorkflow;
import io.pointsman.e2e.TemporalEndedExecutions;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.validate.TopologyValidator;
import io.pointsman.engine.validate.ValidationReport;
import io.pointsman.engine.vtorc.FailoverToolCheck;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * pointsman pointed at a real {@link VitessCluster}: the Temporal SDK's in-process test server with
 * one worker that runs pointsman's workflows and its real activities, their {@link Services} on the
 * cluster's etcd (Vitess's default roots, {@link TopoPaths#defaults()}) and on the primaries through
 * vttablet's tablet-manager RPCs only ({@link PrimaryBackend#TABLET}: a MySQL write behind vttablet's
 * back would fail the test), registered as the worker process registers them (no VTOrc). Each action
 * is started as the CLI starts it (its canonical workflow id, the request of the api module) and its
 * result awaited.
 */
public final class PointsmanOnVitess implements AutoCloseable {
  private static final Duration ACTION_TIMEOUT = Duration.ofMinutes(5);

  private final Client etcd;
  private final Services services;
  private final TestWorkflowEnvironment env;
  private final TopologyValidator validator;

  private PointsmanOnVitess(Client etcd, Services services, TestWorkflowEnvironment env) {
    this.etcd = etcd;
    this.services = services;
    this.env = env;
    this.validator = new TopologyValidator(etcd, TopoPaths.defaults(), services);
  }

  /** Starts the worker on the cluster's etcd and tablets. */
  public static PointsmanOnVitess start(VitessCluster cluster) {
    return start(cluster, UnaryOperator.identity());
  }

  /** The same, with the switch activities wrapped (a {@link io.pointsman.e2e.FaultInjection}). */
  public static PointsmanOnVitess start(VitessCluster cluster, UnaryOperator<SwitchActivities> switchWrapper) {
    Client etcd = TestEtcd.client(cluster.env("POINTSMAN_VITESS_ETCD"));
    Services services = null;
    try {
      TopoPaths paths = TopoPaths.defaults();
      MySqlOptions mysql = MySqlOptions.builder()
          .user("vt_dba")
          .password(cluster.env("POINTSMAN_VITESS_DB_PASSWORD"))
          // the cluster's MariaDB servers listen on loopback without TLS
          .tlsMode(MySqlOptions.TlsMode.DISABLED)
          .allowPublicKeyRetrieval(true)
          .build();
      services = new Services(etcd, paths, mysql, TabletRpcOptions.DEFAULTS, PrimaryBackend.TABLET);
      TestEnvironmentOptions.Builder options = TestEnvironmentOptions.newBuilder()
          .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder()
              .setWorkerInterceptors(WorkflowRegistration.interceptors()).build())
          .setWorkflowClientOptions(WorkflowClientOptions.newBuilder()
              .setDataConverter(PlainInputConverter.dataConverter()).build());
      for (var key : Pointsman.SEARCH_ATTRIBUTES) {
        options.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      }
      TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options.build());
      Worker worker = env.newWorker(Pointsman.TASK_QUEUE);
      WorkflowRegistration.registerWorkflows(worker);
      worker.registerActivitiesImplementations(switchWrapper.apply(new SwitchActivitiesImpl(services)),
          new CleanupActivitiesImpl(services),
          new LockActivitiesImpl(services.locks()),
          new FailoverToolActivitiesImpl(FailoverToolCheck.of(List.of())),
          new JournalActivitiesImpl(services),
          new ValidateActivitiesImpl(etcd, paths, services), new ShowActivitiesImpl(services));
      env.start();
      return new PointsmanOnVitess(etcd, services, env);
    } catch (RuntimeException | Error e) {
      if (services != null) {
        services.close();
      }
      etcd.close();
      throw e;
    }
  }

  /** {@code pointsman MoveTables SwitchTraffic --tablet-types ...}; returns its result once it ended. */
  public ActionResult switchTraffic(String targetKeyspace, String workflow, List<TabletType> tabletTypes) {
    SwitchTrafficRequest request = SwitchTrafficRequest.of(workflow, targetKeyspace).withTabletTypes(tabletTypes);
    return stub(SwitchTrafficWorkflow.class, Pointsman.SWITCH_TRAFFIC, targetKeyspace, workflow).switchTraffic(request);
  }

  /** {@code pointsman MoveTables ReverseTraffic --tablet-types ...}; returns its result once it ended. */
  public ActionResult reverseTraffic(String targetKeyspace, String workflow, List<TabletType> tabletTypes) {
    SwitchTrafficRequest request = SwitchTrafficRequest.of(workflow, targetKeyspace).withTabletTypes(tabletTypes);
    return stub(ReverseTrafficWorkflow.class, Pointsman.REVERSE_TRAFFIC, targetKeyspace, workflow)
        .reverseTraffic(request);
  }

  /** {@code pointsman MoveTables MirrorTraffic --tablet-types ... --percent ...}; returns its result once it ended. */
  public ActionResult mirrorTraffic(String targetKeyspace, String workflow, List<TabletType> tabletTypes,
      float percent) {
    MirrorTrafficRequest request = MirrorTrafficRequest.of(workflow, targetKeyspace).withTabletTypes(tabletTypes)
        .withPercent(percent);
    return stub(MirrorTrafficWorkflow.class, Pointsman.MIRROR_TRAFFIC, targetKeyspace, workflow).mirrorTraffic(request);
  }

  /** {@code pointsman MoveTables Complete}; returns its result once it ended. */
  public ActionResult complete(String targetKeyspace, String workflow) {
    return complete(CompleteRequest.of(workflow, targetKeyspace));
  }

  /** {@code pointsman MoveTables Complete} with the request's flags; returns its result once it ended. */
  public ActionResult complete(CompleteRequest request) {
    return stub(CompleteMigrationWorkflow.class, Pointsman.COMPLETE_MIGRATION, request.targetKeyspace(),
        request.workflow()).complete(request);
  }

  /** {@code pointsman MoveTables Cancel}; returns its result once it ended. */
  public ActionResult cancel(String targetKeyspace, String workflow) {
    return cancel(CancelRequest.of(workflow, targetKeyspace));
  }

  /** {@code pointsman MoveTables Cancel} with the request's flags; returns its result once it ended. */
  public ActionResult cancel(CancelRequest request) {
    return stub(CancelMigrationWorkflow.class, Pointsman.CANCEL_MIGRATION, request.targetKeyspace(),
        request.workflow()).cancel(request);
  }

  /** {@code pointsman MoveTables show}: vtctldclient's JSON. */
  public String show(String targetKeyspace, String workflow) {
    return stub(ShowWorkflow.class, Pointsman.SHOW_WORKFLOW, targetKeyspace, workflow)
        .show(ShowRequest.show(workflow, targetKeyspace, false));
  }

  /** {@code pointsman MoveTables status}: vtctldclient's JSON, with its traffic state. */
  public String status(String targetKeyspace, String workflow) {
    return stub(ShowWorkflow.class, Pointsman.SHOW_WORKFLOW, targetKeyspace, workflow)
        .show(ShowRequest.status(workflow, targetKeyspace));
  }

  /** {@code pointsman Validate}: the workflow's records against its defined states. */
  public TopologyReport validate(String targetKeyspace, String workflow) {
    return stub(ValidateTopologyWorkflow.class, Pointsman.VALIDATE_TOPOLOGY, targetKeyspace, workflow)
        .validate(ValidateRequest.of(workflow, targetKeyspace));
  }

  /**
   * What pointsman's validator finds in the workflow now, read in this process; lock keys are checked
   * against this Temporal.
   */
  public ValidationReport validateHere(String targetKeyspace, String workflow) {
    return validator.validate(targetKeyspace, workflow, TemporalEndedExecutions.of(client()));
  }

  /** Fails unless pointsman's validator finds the workflow in {@code state} (e.g. ALL_SWITCHED) with no violation. */
  public void assertValid(String targetKeyspace, String workflow, String state) {
    ValidatorChecks.assertDefined(validateHere(targetKeyspace, workflow), state);
  }

  /** A stub for a workflow of pointsman's under {@code id}, to start and await as a test needs. */
  public <T> T workflow(Class<T> type, String id) {
    return client().newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE)
        .setWorkflowId(id).setWorkflowExecutionTimeout(ACTION_TIMEOUT).build());
  }

  public Services services() {
    return services;
  }

  /** The cluster's etcd, as the worker sees it. */
  public Client etcd() {
    return etcd;
  }

  /** The keys under a keyspace's lock directory in the cluster's etcd: one per holder or waiter. */
  public List<String> lockKeys(String keyspace) throws Exception {
    ByteSequence prefix = ByteSequence.from("/vitess/global/keyspaces/" + keyspace + "/locks/", StandardCharsets.UTF_8);
    return etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).withKeysOnly(true).build())
        .get(10, TimeUnit.SECONDS).getKvs().stream().map(kv -> kv.getKey().toString(StandardCharsets.UTF_8)).toList();
  }

  public WorkflowClient client() {
    return env.getWorkflowClient();
  }

  /**
   * A stub under the action's canonical id; reads (show, validate) get a unique suffix, since the
   * CLI runs them the same way any number of times.
   */
  private <T> T stub(Class<T> type, String action, String targetKeyspace, String workflow) {
    String id = Pointsman.workflowId(action, targetKeyspace, workflow);
    if (action.equals(Pointsman.SHOW_WORKFLOW) || action.equals(Pointsman.VALIDATE_TOPOLOGY)) {
      id += "-" + UUID.randomUUID();
    }
    return client().newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE)
        .setWorkflowId(id).setWorkflowExecutionTimeout(ACTION_TIMEOUT).build());
  }

  @Override
  public void close() {
    env.close();
    services.close();
    etcd.close();
  }
}
