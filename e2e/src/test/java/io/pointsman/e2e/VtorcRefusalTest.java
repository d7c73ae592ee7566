package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.vitess.Vtorc;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.vtorc.VtorcClient;
import io.pointsman.engine.vtorc.VtorcProblem;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With VTOrc addresses configured, the write window opens only when every VTOrc sees no problem on
 * any of its shards. Against a real VTOrc of Vitess 24 (built from the Vitess module like vtctld),
 * recoveries off: the sandbox's primaries are MariaDB servers with no vttablet in front, so VTOrc
 * finds every primary unreachable and reports it, as it would a dead primary it is about to
 * replace. pointsman refuses, naming VTOrc, the shard and the problem, with nothing changed.
 */
@Timeout(600)
class VtorcRefusalTest {
  private static final String WF = "commerce2customer";
  private static final String KS = "customer";

  @Test
  void aProblemARealVtorcReportsOnASourceShardRefusesTheWriteWindowWithNothingChanged() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables();
        Vtorc vtorc = Vtorc.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot(),
            world.sandbox.options().cell())) {
      world.createMoveTables();
      VtorcClient asked = new VtorcClient(vtorc.httpAddress(), HttpClient.newHttpClient(), Duration.ofSeconds(5));
      List<VtorcProblem> seen = await("VTOrc reporting a problem on commerce/0").atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(1)).until(() -> asked.problems("commerce", "0"), p -> !p.isEmpty());
      world.vtorcAddresses = List.of(vtorc.httpAddress());

      WorkflowStub sw = start(world.client());
      assertThatThrownBy(() -> sw.getResult(3, TimeUnit.MINUTES, ActionResult.class))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(e -> {
            ApplicationFailure failure = (ApplicationFailure) e.getCause();
            assertThat(failure.getType()).isEqualTo("FAILED_PRECONDITION");
            assertThat(failure.getOriginalMessage()).contains("VTOrc " + vtorc.httpAddress() + " reports ")
                .contains(" on commerce/0").contains(seen.get(0).analysis()).contains("Nothing was stopped");
          });
      SwitchTrafficWorkflow query = world.client().newWorkflowStub(SwitchTrafficWorkflow.class,
          sw.getExecution().getWorkflowId());
      assertThat(query.progress().steps()).extracting(StepProgress::name)
          .containsSubsequence("acquireShardLocks", "checkFailoverTools", "releaseLocks")
          .doesNotContain("stopSourceWrites", "createJournals");
      world.assertDefinedState(KS, WF, "NOT_SWITCHED");
    }
  }

  /** A configured VTOrc that does not answer refuses the window too: pointsman cannot tell what it does. */
  @Test
  void aVtorcThatDoesNotAnswerRefusesTheWriteWindow() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      String silent = "127.0.0.1:" + LoopbackPorts.freePort();
      world.vtorcAddresses = List.of(silent);

      WorkflowStub sw = start(world.client());
      assertThatThrownBy(() -> sw.getResult(3, TimeUnit.MINUTES, ActionResult.class))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(e -> assertThat(((ApplicationFailure) e.getCause()).getOriginalMessage())
              .contains("VTOrc " + silent + " did not answer about commerce/0"));
      world.assertDefinedState(KS, WF, "NOT_SWITCHED");

      world.vtorcAddresses = List.of();
      ActionResult done = start(world.client()).getResult(3, TimeUnit.MINUTES, ActionResult.class);
      assertThat(done.currentState()).contains("Writes Switched");
    }
  }

  /** Writes only, so the reads switched before the window cannot blur "nothing changed". */
  private static WorkflowStub start(WorkflowClient client) {
    String id = Pointsman.SWITCH_TRAFFIC + "-" + KS + "." + WF + "-" + UUID.randomUUID();
    SwitchTrafficWorkflow sw = client.newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id).build());
    WorkflowClient.start(sw::switchTraffic, SwitchTrafficRequest.of(WF, KS)
        .withTabletTypes(List.of(TabletType.PRIMARY)));
    return WorkflowStub.fromTyped(sw);
  }
}
