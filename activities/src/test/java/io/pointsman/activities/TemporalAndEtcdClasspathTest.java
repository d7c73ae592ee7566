package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.testing.TestEtcd;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Guards the dependency set: Temporal's test server and jetcd must run in one JVM. A gRPC or Netty
 * version skew between them (the AbstractMethodError trap) fails this test, not a user's worker.
 */
@Timeout(120)
class TemporalAndEtcdClasspathTest {

  @ActivityInterface
  public interface EtcdEcho {
    String echoThroughEtcd(String key, String value);
  }

  @WorkflowInterface
  public interface EchoWorkflow {
    @WorkflowMethod
    String run(String key, String value);
  }

  public static class EchoWorkflowImpl implements EchoWorkflow {
    private final EtcdEcho echo = Workflow.newActivityStub(EtcdEcho.class,
        ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

    @Override
    public String run(String key, String value) {
      return echo.echoThroughEtcd(key, value);
    }
  }

  static final class EtcdEchoImpl implements EtcdEcho {
    private final Client etcd;

    EtcdEchoImpl(Client etcd) {
      this.etcd = etcd;
    }

    @Override
    public String echoThroughEtcd(String key, String value) {
      try {
        etcd.getKVClient().put(EtcdClients.bytes(key), EtcdClients.bytes(value)).get(10, TimeUnit.SECONDS);
        var kv = etcd.getKVClient().get(EtcdClients.bytes(key)).get(10, TimeUnit.SECONDS).getKvs().get(0);
        return EtcdClients.string(kv.getValue());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void workflowOnTheTestServerReadsAndWritesEtcdInTheSameJvm() {
    String key = TestEtcd.freshPaths().globalRoot() + "/echo";
    try (Client etcd = TestEtcd.client(); TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("classpath-check");
      worker.registerWorkflowImplementationTypes(EchoWorkflowImpl.class);
      worker.registerActivitiesImplementations(new EtcdEchoImpl(etcd));
      env.start();

      EchoWorkflow wf = env.getWorkflowClient().newWorkflowStub(EchoWorkflow.class,
          WorkflowOptions.newBuilder().setTaskQueue("classpath-check")
              .setWorkflowId("classpath-" + UUID.randomUUID()).build());

      assertThat(wf.run(key, "hello from temporal")).isEqualTo("hello from temporal");
    }
  }
}
