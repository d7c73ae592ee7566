package io.pointsman.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ClientInterceptor;
import io.pointsman.client.TemporalConnection;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.testing.TestServices;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's watch of eager activities on the real Temporal dev server, with the server's setting
 * on and off: a workflow of two activities, each scheduled by a task of its own, so the SDK asks
 * twice. On, the server hands both over and nothing is said; off, it hands none, and the watch warns
 * with the setting and the namespace named.
 */
@Timeout(180)
class EagerActivityWatchTest {
  private static final String QUEUE = "eager-watch";

  @TempDir
  Path dir;

  @Test
  void aServerThatHandsActivitiesOverEagerlyIsSeenDoingSoAndNothingIsSaid() {
    EagerActivityWatch watch = runTwoSteps(true);
    assertThat(watch.requested()).isGreaterThanOrEqualTo(EagerActivityWatch.UNANSWERED);
    assertThat(watch.received()).isEqualTo(watch.requested());
    assertThat(watch.warning()).isEmpty();
  }

  /** A watch told the server cannot hand out eagerly (dev mode's test server) counts the same and says nothing. */
  @Test
  void aServerWithoutEagerActivitiesIsNamedWithTheSettingToChange() {
    EagerActivityWatch silent = new EagerActivityWatch("default", false);
    EagerActivityWatch watch = runTwoSteps(false, silent);
    assertThat(watch.requested()).isGreaterThanOrEqualTo(EagerActivityWatch.UNANSWERED);
    assertThat(watch.received()).isZero();
    assertThat(watch.warning()).hasValueSatisfying(w -> assertThat(w)
        .contains("system.enableActivityEagerExecution", "namespace default", "docs/real-temporal.md"));
    assertThat(silent.requested()).isEqualTo(watch.requested());
    assertThat(silent.received()).isZero();
    assertThat(silent.warning()).isEmpty();
  }

  private EagerActivityWatch runTwoSteps(boolean eager) {
    return runTwoSteps(eager, null);
  }

  /** Two activities on a dev server with eager activities on or off, watched; {@code also}, a second watch. */
  private EagerActivityWatch runTwoSteps(boolean eager, EagerActivityWatch also) {
    EagerActivityWatch watch = new EagerActivityWatch("default");
    List<ClientInterceptor> watches = also == null ? List.of(watch) : List.of(watch, also);
    try (TemporalDevServer server = TemporalDevServer.start(Path.of(TestServices.temporalBinary()),
            dir.resolve("temporal"), 0, eager);
        TemporalConnection temporal = TemporalConnection.lazy(
            TemporalOptions.builder().address(server.address()).build(), null, watches)) {
      WorkerFactory factory = WorkerFactory.newInstance(temporal.client());
      try {
        Worker worker = factory.newWorker(QUEUE);
        worker.registerWorkflowImplementationTypes(TwoStepsImpl.class);
        worker.registerActivitiesImplementations(new StepImpl());
        factory.start();
        String result = temporal.client().newWorkflowStub(TwoSteps.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId("two-steps").build()).run();
        assertThat(result).isEqualTo("12");
      } finally {
        factory.shutdownNow();
        factory.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
    return watch;
  }

  @WorkflowInterface
  public interface TwoSteps {
    @WorkflowMethod
    String run();
  }

  @ActivityInterface
  public interface Step {
    String step(int n);
  }

  public static class TwoStepsImpl implements TwoSteps {
    private final Step step = Workflow.newActivityStub(Step.class,
        ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

    @Override
    public String run() {
      return step.step(1) + step.step(2);
    }
  }

  public static class StepImpl implements Step {
    @Override
    public String step(int n) {
      return Integer.toString(n);
    }
  }
}
