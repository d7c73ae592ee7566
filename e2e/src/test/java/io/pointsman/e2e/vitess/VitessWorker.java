package io.pointsman.e2e.vitess;

import io.etcd.jetcd.Client;
import io.pointsman.activities.CleanupActivitiesImpl;
import io.pointsman.activities.FailoverToolActivitiesImpl;
import io.pointsman.activities.JournalActivitiesImpl;
import io.pointsman.activities.LockActivitiesImpl;
import io.pointsman.activities.ShowActivitiesImpl;
import io.pointsman.activities.SwitchActivitiesImpl;
import io.pointsman.activities.ValidateActivitiesImpl;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.request.PlainInputConverter;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.engine.Services;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.validate.EndedExecutions;
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
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * pointsman's worker on a real {@link VitessCluster}: its workflows on the SDK's test server, its
 * activities on the cluster's etcd and, through vttablet's tablet-manager RPCs, its primaries
 * ({@link PrimaryBackend#TABLET}: a MySQL write behind vttablet's back would fail the test).
 */
final class VitessWorker implements AutoCloseable {
  final Client etcd;
  final Services services;
  final TestWorkflowEnvironment env;
  final TopologyValidator validator;

  private VitessWorker(VitessCluster cluster, UnaryOperator<SwitchActivities> switchWrapper) {
    this.etcd = TestEtcd.client(cluster.env("POINTSMAN_VITESS_ETCD"));
    TopoPaths paths = TopoPaths.defaults();
    // never used with the TABLET backend; Services needs an account for its (lazy) MySQL pools
    MySqlOptions mysql = MySqlOptions.builder().user("vt_dba").password("unused").build();
    this.services = new Services(etcd, paths, mysql, TabletRpcOptions.DEFAULTS, PrimaryBackend.TABLET);
    this.validator = new TopologyValidator(etcd, paths, services);
    TestEnvironmentOptions.Builder options = TestEnvironmentOptions.newBuilder()
        .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder()
            .setWorkerInterceptors(WorkflowRegistration.interceptors()).build())
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder()
            .setDataConverter(PlainInputConverter.dataConverter()).build());
    for (var key : Pointsman.SEARCH_ATTRIBUTES) {
      options.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    this.env = TestWorkflowEnvironment.newInstance(options.build());
    Worker worker = env.newWorker(Pointsman.TASK_QUEUE);
    WorkflowRegistration.registerWorkflows(worker);
    worker.registerActivitiesImplementations(switchWrapper.apply(new SwitchActivitiesImpl(services)), new CleanupActivitiesImpl(services),
        new LockActivitiesImpl(services.locks()),
        new FailoverToolActivitiesImpl(new FailoverToolCheck(List::of, Duration.ofSeconds(5))),
        new JournalActivitiesImpl(services), new ShowActivitiesImpl(services),
        new ValidateActivitiesImpl(etcd, paths, services));
    env.start();
  }

  static VitessWorker start(VitessCluster cluster) {
    return start(cluster, UnaryOperator.identity());
  }

  /** The same, with the switch activities wrapped (a {@link io.pointsman.e2e.FaultInjection}). */
  static VitessWorker start(VitessCluster cluster, UnaryOperator<SwitchActivities> switchWrapper) {
    return new VitessWorker(cluster, switchWrapper);
  }

  WorkflowClient client() {
    return env.getWorkflowClient();
  }

  <T> T workflow(Class<T> type, String id) {
    return client().newWorkflowStub(type, WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE)
        .setWorkflowId(id).setWorkflowExecutionTimeout(Duration.ofMinutes(5)).build());
  }

  /** What pointsman's validator finds in the workflow now; lock keys are checked against this Temporal. */
  ValidationReport validate(String targetKeyspace, String workflow) {
    return validator.validate(targetKeyspace, workflow, endedExecutions());
  }

  EndedExecutions endedExecutions() {
    return io.pointsman.e2e.TemporalEndedExecutions.of(client());
  }

  @Override
  public void close() {
    env.close();
    services.close();
    etcd.close();
  }
}
