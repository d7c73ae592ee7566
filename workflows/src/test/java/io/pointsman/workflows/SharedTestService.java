package io.pointsman.workflows;

import io.pointsman.api.activities.CleanupActivities;
import io.pointsman.api.activities.FailoverToolActivities;
import io.pointsman.api.activities.LockActivities;
import io.pointsman.api.activities.SwitchActivities;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One test Temporal service, with one worker, for every {@link SwitchHarness} of this JVM.
 *
 * <p>Why shared: closing a {@code TestWorkflowEnvironment} waits for its pollers and activity
 * threads to stop, 0.3-0.7 s each time, which was most of a workflow test's time when every test
 * built its own. Sharing keeps each test's mocks its own: the worker's activity implementations
 * are forwarders that hand each call to the harness whose workflow made it, found by the
 * workflow ID each harness draws fresh. A call from a workflow no harness owns any more (a run a
 * failed test left behind) fails without touching anything.
 */
final class SharedTestService {
  static final String TASK_QUEUE = "switch-test";
  private static final List<Class<?>> ACTIVITY_INTERFACES = List.of(SwitchActivities.class, LockActivities.class,
      CleanupActivities.class, FailoverToolActivities.class);
  private static final Map<String, SwitchHarness> HARNESSES = new ConcurrentHashMap<>();
  private static volatile TestWorkflowEnvironment env;

  private SharedTestService() {}

  /** The service, started on first use and closed when the JVM exits. */
  static TestWorkflowEnvironment environment() {
    TestWorkflowEnvironment started = env;
    if (started == null) {
      synchronized (SharedTestService.class) {
        if (env == null) {
          env = start();
        }
        started = env;
      }
    }
    return started;
  }

  /** Routes the activity calls of workflow {@code workflowId} to {@code harness} until {@link #release}. */
  static void register(String workflowId, SwitchHarness harness) {
    HARNESSES.put(workflowId, harness);
  }

  static void release(String workflowId) {
    HARNESSES.remove(workflowId);
  }

  private static TestWorkflowEnvironment start() {
    TestEnvironmentOptions.Builder options = TestEnvironmentOptions.newBuilder();
    for (var key : Pointsman.SEARCH_ATTRIBUTES) {
      options.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    TestWorkflowEnvironment created = TestWorkflowEnvironment.newInstance(options.build());
    Worker worker = created.newWorker(TASK_QUEUE);
    WorkflowRegistration.registerWorkflows(worker);
    worker.registerActivitiesImplementations(ACTIVITY_INTERFACES.stream()
        .map(SharedTestService::forwarder).toArray());
    created.start();
    Runtime.getRuntime().addShutdownHook(new Thread(created::close, "shared-test-service-close"));
    return created;
  }

  /** An implementation of {@code type} that runs each call on the calling workflow's harness's mock. */
  private static Object forwarder(Class<?> type) {
    return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
      if (method.getDeclaringClass() == Object.class) {
        return switch (method.getName()) {
          case "equals" -> proxy == args[0];
          case "hashCode" -> System.identityHashCode(proxy);
          default -> "forwarder of " + type.getSimpleName();
        };
      }
      String workflowId = Activity.getExecutionContext().getInfo().getWorkflowId();
      SwitchHarness harness = HARNESSES.get(workflowId);
      if (harness == null) {
        throw new IllegalStateException("no test owns workflow " + workflowId + " any more");
      }
      try {
        return method.invoke(harness.mockOf(type), args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }
}
