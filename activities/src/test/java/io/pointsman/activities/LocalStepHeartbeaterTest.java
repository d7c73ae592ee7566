package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A step run as a local activity (the write window's chain) cannot heartbeat: the SDK ignores a
 * local activity's heartbeat. Its Heartbeater then starts no thread, where an ordinary activity's
 * heartbeats from a thread of its own.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LocalStepHeartbeaterTest {
  private static final String QUEUE = "heartbeater-probe";

  @ActivityInterface
  public interface Probe {
    /** Whether a heartbeat thread runs for this activity while its Heartbeater is open. */
    boolean heartbeatThreadRuns();
  }

  public static final class ProbeImpl implements Probe {
    @Override
    public boolean heartbeatThreadRuns() {
      try (Heartbeater hb = Heartbeater.start()) {
        return Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().equals("heartbeat HeartbeatThreadRuns") && t.isAlive());
      }
    }
  }

  @WorkflowInterface
  public interface ProbeWorkflow {
    @WorkflowMethod
    boolean run(boolean local);
  }

  public static final class ProbeWorkflowImpl implements ProbeWorkflow {
    @Override
    public boolean run(boolean local) {
      Probe probe = local
          ? Workflow.newLocalActivityStub(Probe.class,
              LocalActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build())
          : Workflow.newActivityStub(Probe.class, ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofSeconds(30)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
      return probe.heartbeatThreadRuns();
    }
  }

  private TestWorkflowEnvironment env;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ProbeWorkflowImpl.class);
    worker.registerActivitiesImplementations(new ProbeImpl());
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private boolean run(boolean local) {
    return env.getWorkflowClient().newWorkflowStub(ProbeWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(QUEUE).build()).run(local);
  }

  @Test
  void aLocalStepStartsNoHeartbeatThreadAndAnOrdinaryOneDoes() {
    assertThat(run(true)).as("local activity").isFalse();
    assertThat(run(false)).as("ordinary activity").isTrue();
  }
}
