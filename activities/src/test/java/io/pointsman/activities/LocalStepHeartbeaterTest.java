package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A step run as a local activity (the write window's chain) cannot heartbeat: the SDK ignores a
 * local activity's heartbeat. Its Heartbeater then starts no thread, where an ordinary activity's
 * heartbeats from a thread of its own.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LocalStepHeartbeaterTest {
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

  @AutoClose
  private final ProbeEnvironment probe = new ProbeEnvironment(ProbeWorkflowImpl.class, new ProbeImpl());

  private boolean run(boolean local) {
    return probe.workflow(ProbeWorkflow.class).run(local);
  }

  @Test
  void aLocalStepStartsNoHeartbeatThreadAndAnOrdinaryOneDoes() {
    assertThat(run(true)).as("local activity").isFalse();
    assertThat(run(false)).as("ordinary activity").isTrue();
  }
}
