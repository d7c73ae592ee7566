package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.Progress;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.RawValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starting pointsman's workflows the way the Temporal UI does (an untyped start with one
 * json/plain payload typed by hand), bad input failing the workflow at once, and what an operator
 * sees of a finished SwitchTraffic: search attributes, the progress query, current details.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UiStartAndOperatorViewTest {
  private static final Logger log = LoggerFactory.getLogger(UiStartAndOperatorViewTest.class);
  private static final String KS = "customer";
  private static final String WF = "commerce2customer";
  /** Bad input must fail the workflow well within this, not retry workflow tasks. */
  private static final long FAILS_WITHIN_SECONDS = 15;

  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  @Order(1)
  void aUiStartWithOneJsonPayloadRuns() throws Exception {
    WorkflowStub stub = untyped(Pointsman.SWITCH_TRAFFIC);
    stub.start(json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\","
        + " \"tabletTypes\": [\"REPLICA\", \"RDONLY\", \"PRIMARY\"], \"timeout\": \"30s\", \"dryRun\": true}"));

    ActionResult result = stub.getResult(60, TimeUnit.SECONDS, ActionResult.class);

    assertThat(result.summary()).startsWith("SwitchTraffic dry run results for workflow customer.commerce2customer");
    assertThat(result.dryRunResults()).contains("Lock workflow customer/commerce2customer");
  }

  @Test
  @Order(2)
  void aMisspelledFieldFailsTheWorkflowAtOnceNamingIt() {
    assertThat(failureOf(Pointsman.SWITCH_TRAFFIC,
        json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\", \"timout\": \"30s\"}")))
        .contains("timout");
  }

  @Test
  @Order(3)
  void jsonThatDoesNotParseFailsTheWorkflowAtOnceWithTheParseError() {
    assertThat(failureOf(Pointsman.SWITCH_TRAFFIC, json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": ")))
        .containsIgnoringCase("end-of-input");
  }

  @Test
  @Order(4)
  void completeAndCancelInputsWithAWrongFieldTypeFailAtOnceNamingTheField() {
    assertThat(failureOf(Pointsman.COMPLETE_MIGRATION,
        json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\", \"keepData\": \"yes\"}")))
        .contains("keepData");
    assertThat(failureOf(Pointsman.CANCEL_MIGRATION,
        json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\", \"keepRoutingRules\": 1}")))
        .contains("keepRoutingRules");
    assertThat(failureOf(Pointsman.REVERSE_TRAFFIC,
        json("{\"workflow\": \"commerce2customer\", \"targetKeyspace\": \"customer\", \"dryRun\": \"true\"}")))
        .contains("dryRun");
  }

  @Test
  @Order(5)
  void aStartWithoutInputFailsSayingTheInputIsMissing() {
    assertThat(failureOf(Pointsman.SWITCH_TRAFFIC)).contains("input is missing");
    assertThat(failureOf(Pointsman.CANCEL_MIGRATION)).contains("input is missing");
  }

  @Test
  @Order(6)
  void aFinishedSwitchShowsItsSearchAttributesStepsAndDetails() {
    SwitchTrafficWorkflow wf = world().workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, KS, WF));
    ActionResult result = wf.switchTraffic(SwitchTrafficRequest.of(WF, KS));
    assertThat(result.currentState()).isEqualTo(ALL_SWITCHED);
    WorkflowStub stub = WorkflowStub.fromTyped(wf);

    WorkflowExecutionDescription d = stub.describe();
    assertThat(d.getTypedSearchAttributes().get(Pointsman.TARGET_KEYSPACE)).isEqualTo(KS);
    assertThat(d.getTypedSearchAttributes().get(Pointsman.VREPLICATION_WORKFLOW)).isEqualTo(WF);
    assertThat(d.getTypedSearchAttributes().get(Pointsman.SWITCH_PHASE)).isEqualTo("done");

    Progress progress = wf.progress();
    assertThat(progress.phase()).isEqualTo("done");
    assertThat(progress.steps()).extracting(StepProgress::name).containsSubsequence("buildTrafficSwitcher",
        "acquireLocks", "switchReads", "stopSourceWrites", "waitForCatchup", "createJournals", "changeRouting",
        "releaseLocks");
    for (StepProgress s : progress.steps()) {
      assertThat(s.startedAt()).as("start of %s", s.name()).isNotNull();
      assertThat(s.finishedAt()).as("end of %s", s.name()).isNotNull().isAfterOrEqualTo(s.startedAt());
    }
    assertThat(progress.locks()).isEmpty();

    WorkflowMetadata metadata = stub.query(WorkflowClient.QUERY_TYPE_WORKFLOW_METADATA, WorkflowMetadata.class);
    assertThat(metadata.getCurrentDetails()).contains("SwitchTraffic", "customer.commerce2customer", "done");
    assertThat(metadata.getDefinition().getQueryDefinitionsList()).anyMatch(q -> q.getName().equals("progress"));
  }

  private static WorkflowStub untyped(String type) {
    return world().client().newUntypedWorkflowStub(type, WorkflowOptions.newBuilder()
        .setTaskQueue(Pointsman.TASK_QUEUE)
        .setWorkflowId(id(type, KS, WF))
        .setWorkflowExecutionTimeout(Duration.ofMinutes(5))
        .build());
  }

  /** What the Temporal UI sends: one payload, metadata encoding json/plain, the typed JSON as data. */
  private static RawValue json(String typed) {
    return new RawValue(Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(typed, StandardCharsets.UTF_8))
        .build());
  }

  /** Starts the type with the arguments and returns the messages of the failure chain, one a line. */
  private static String failureOf(String type, Object... args) {
    WorkflowStub stub = untyped(type);
    long started = System.nanoTime();
    stub.start(args);
    Throwable thrown = catchThrowable(() -> stub.getResult(FAILS_WITHIN_SECONDS, TimeUnit.SECONDS, ActionResult.class));
    assertThat(thrown).as("the workflow fails within %d s", FAILS_WITHIN_SECONDS)
        .isInstanceOf(WorkflowFailedException.class);
    List<String> messages = new ArrayList<>();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      messages.add(t.getClass().getSimpleName() + ": " + t.getMessage());
    }
    log.info("{} failed in {} ms:\n{}", type, Duration.ofNanos(System.nanoTime() - started).toMillis(),
        String.join("\n", messages));
    return String.join("\n", messages);
  }
}
