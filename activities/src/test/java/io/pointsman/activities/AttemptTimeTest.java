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
 * A step reads how long its attempt may work from its own start-to-close, less a margin for its
 * answer, so that it fails with its own error before Temporal times it out; outside an activity it
 * takes its caller's default. prepareSourceWrites bounds its statements together this way.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AttemptTimeTest {
  @ActivityInterface
  public interface Probe {
    /** AttemptTime.left inside the activity, in milliseconds. */
    long millisLeft();
  }

  public static final class ProbeImpl implements Probe {
    @Override
    public long millisLeft() {
      return AttemptTime.left(Duration.ofDays(1)).toMillis();
    }
  }

  @WorkflowInterface
  public interface ProbeWorkflow {
    @WorkflowMethod
    long run(boolean local, Duration startToClose);
  }

  public static final class ProbeWorkflowImpl implements ProbeWorkflow {
    @Override
    public long run(boolean local, Duration startToClose) {
      Probe probe = local
          ? Workflow.newLocalActivityStub(Probe.class,
              LocalActivityOptions.newBuilder().setStartToCloseTimeout(startToClose).build())
          : Workflow.newActivityStub(Probe.class, ActivityOptions.newBuilder()
              .setStartToCloseTimeout(startToClose).build());
      return probe.millisLeft();
    }
  }

  @AutoClose
  private final ProbeEnvironment probe = new ProbeEnvironment(ProbeWorkflowImpl.class, new ProbeImpl());

  private Duration left(boolean local, Duration startToClose) {
    return Duration.ofMillis(probe.workflow(ProbeWorkflow.class).run(local, startToClose));
  }

  @Test
  void aLocalStepHasItsStartToCloseLessTheMargin() {
    assertThat(left(true, Duration.ofMinutes(5).plusSeconds(30))).isEqualTo(Duration.ofMinutes(5).plusSeconds(15));
  }

  @Test
  void anOrdinaryStepHasItsStartToCloseLessTheMargin() {
    assertThat(left(false, Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(4).plusSeconds(45));
  }

  @Test
  void aShortStepKeepsATenthOfItForItsAnswer() {
    assertThat(left(true, Duration.ofSeconds(40))).isEqualTo(Duration.ofSeconds(36));
  }

  @Test
  void outsideAnActivityTheCallersDefaultHolds() {
    assertThat(AttemptTime.left(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
  }
}
