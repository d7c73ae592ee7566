package io.pointsman.workflows.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.workflows.SwitchTrafficWorkflowImpl;
import io.pointsman.workflows.WorkflowRegistration;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.ReplayResults;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.client.WorkflowClientOptions;
import io.pointsman.api.request.PlainInputConverter;
import io.temporal.worker.NonDeterministicException;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Replays every recorded history under {@code src/test/resources/histories} (happy paths, dry run,
 * compensation, lock loss, cancellation, rejected input; recorded by the sandbox module's
 * {@code HistoryRecorder}) against today's workflow code. A change that alters the commands an old
 * run produced fails here, not in production on a worker that picks up a running switch: put it
 * behind {@code Workflow.getVersion}. Keep the histories of older code when recording new ones:
 * {@code <scenario>.json} were recorded before the switch's version markers (4d2d4ca),
 * {@code <scenario>@<commit>.json} at that commit, so both sides of each marker are replayed.
 */
@Timeout(120)
class HistoryReplayTest {
  private TestWorkflowEnvironment env;

  @BeforeEach
  void setUp() {
    // the real worker's interceptors (activity summaries) and converter, so replay runs what it runs
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder()
            .setWorkerInterceptors(WorkflowRegistration.interceptors()).build())
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder()
            .setDataConverter(PlainInputConverter.dataConverter()).build())
        .build());
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void everyRecordedHistoryReplaysOnTodaysWorkflows() throws Exception {
    List<WorkflowExecutionHistory> histories = histories();
    assertThat(histories).as("recorded histories").hasSizeGreaterThanOrEqualTo(8);
    // the registration of the real worker: its fail-workflow exception types decide whether bad
    // input failed the workflow or its task, and replay must see the same
    Worker worker = env.newWorker("replay");
    WorkflowRegistration.registerWorkflows(worker);
    ReplayResults results = WorkflowReplayer.replayWorkflowExecutions(histories, false, worker);
    assertThat(results.hadAnyError()).as(() -> results.allErrors().stream()
        .map(e -> e.workflowId + ": " + e.exception).collect(Collectors.joining("\n"))).isFalse();
  }

  @Test
  void aWorkflowThatAddsAStepIsCaughtAsNonDeterministic() throws Exception {
    WorkflowExecutionHistory happy = WorkflowExecutionHistory.fromJson(
        Files.readString(dir().resolve("switch-traffic.json")));
    Worker worker = env.newWorker("replay-changed");
    worker.registerWorkflowImplementationTypes(WorkflowRegistration.options(), SwitchTrafficWithExtraStep.class);
    ReplayResults results = WorkflowReplayer.replayWorkflowExecutions(List.of(happy), false, worker);
    assertThat(results.hadAnyError()).isTrue();
    // the replayer reports it as a query failure whose message carries the original exception
    StringBuilder chain = new StringBuilder();
    for (Throwable t = results.allErrors().iterator().next().exception; t != null; t = t.getCause()) {
      chain.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
    }
    assertThat(chain.toString()).contains(NonDeterministicException.class.getName())
        .contains("COMMAND_TYPE_START_TIMER");
  }

  /** SwitchTraffic as a careless change would ship it: a new timer before the first step. */
  public static class SwitchTrafficWithExtraStep implements SwitchTrafficWorkflow {
    private final SwitchTrafficWorkflowImpl real = new SwitchTrafficWorkflowImpl();

    @Override
    public ActionResult switchTraffic(SwitchTrafficRequest request) {
      Workflow.sleep(Duration.ofSeconds(1));
      return real.switchTraffic(request);
    }

    @Override
    public void lockWait(String waitingFor) {
      real.lockWait(waitingFor);
    }

    @Override
    public Progress progress() {
      return real.progress();
    }
  }

  static Path dir() throws URISyntaxException {
    return Path.of(HistoryReplayTest.class.getResource("/histories").toURI());
  }

  static List<WorkflowExecutionHistory> histories() throws IOException, URISyntaxException {
    List<WorkflowExecutionHistory> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir())) {
      for (Path p : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        String name = p.getFileName().toString();
        out.add(WorkflowExecutionHistory.fromJson(Files.readString(p), name.substring(0, name.length() - 5)));
      }
    }
    return out;
  }
}
