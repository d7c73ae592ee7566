package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.id;
import static io.pointsman.e2e.E2eChecks.tables;
import static io.pointsman.e2e.E2eChecks.triggers;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.sandbox.cluster.MoveTablesSpec;
import io.pointsman.sandbox.cluster.SandboxLayout;
import io.pointsman.sandbox.cluster.SandboxShape;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 item 2, at scale: Complete of a MoveTables of a thousand tables, whose steps each drop
 * or rename a thousand tables and their barrier triggers, well past the steps' 10 s heartbeat
 * timeout if a step did not heartbeat. Every step must run exactly once, as Temporal's history
 * records it (one ActivityTaskStarted per step, attempt 1), and the source must be left with none
 * of the tables, none of their triggers and no workflow. The switch before it runs with a timeout
 * shorter than its dormant barrier's statements take together: the timeout bounds each one's wait
 * for transactions, not their work (a CI run failed when it bounded both).
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class CompleteOfAThousandTablesTest {
  private static final int TABLES = 1000;
  private static final String WORKFLOW = "move_thousand";
  private static final String SOURCE = SandboxLayout.COMMERCE;
  private static final String TARGET = SandboxLayout.CUSTOMER;
  /**
   * The request's timeout bounds each wait for open transactions, not the dormant barrier's 3000
   * trigger statements together, which take longer than this on any machine here.
   */
  private static final Duration SWITCH_TIMEOUT = Duration.ofSeconds(2);

  private static final FaultInjection faults = new FaultInjection();
  @AutoClose
  private static SwitchWorld world;
  private static List<String> moved;

  @BeforeAll
  static void up() throws Exception {
    SandboxShape shape = SandboxShape.DEFAULT.withExtraTables(TABLES);
    moved = shape.extraTableNames();
    world = SwitchWorld.start(true, shape, faults);
    world.createMoveTables(new MoveTablesSpec(WORKFLOW, SOURCE, TARGET, moved, true));
  }

  @Test
  void everyStepRunsOnceAndLeavesNoneOfTheThousandTablesBehind() throws Exception {
    assertThat(world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC, TARGET, WORKFLOW))
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET).withTimeout(SWITCH_TIMEOUT)).currentState())
        .isEqualTo(ALL_SWITCHED);

    CompleteMigrationWorkflow complete = world.workflow(CompleteMigrationWorkflow.class,
        id(Pointsman.COMPLETE_MIGRATION, TARGET, WORKFLOW));
    ActionResult done = complete.complete(CompleteRequest.of(WORKFLOW, TARGET));

    assertThat(done.summary()).isEqualTo("Successfully completed the " + WORKFLOW + " workflow in the customer keyspace");
    List<HistoryEvent> history = world.client()
        .fetchHistory(WorkflowStub.fromTyped(complete).getExecution().getWorkflowId()).getEvents();
    List<HistoryEvent> started = history.stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED).toList();
    assertThat(started).as("activity tasks started").isNotEmpty()
        .allMatch(e -> e.getActivityTaskStartedEventAttributes().getAttempt() == 1, "first attempts only");
    Map<String, Long> drops = faults.calls().stream()
        .filter(c -> List.of("dropSources", "dropTargets", "deleteStreams", "deleteRoutingRules").contains(c.step()))
        .collect(Collectors.groupingBy(FaultInjection.Call::step, Collectors.counting()));
    assertThat(drops).as("calls of each cleanup step").containsEntry("dropSources", 1L)
        .allSatisfy((step, calls) -> assertThat(calls).as(step).isEqualTo(1L));

    world.assertDefinedState(TARGET, WORKFLOW, "NO_WORKFLOW");
    assertThat(tables(world, SOURCE, "0")).as("moved tables left on the source").doesNotContainAnyElementsOf(moved);
    assertThat(triggers(world, SOURCE, "0")).as("barrier triggers left on the source").isEmpty();
  }
}
