package io.pointsman.e2e;

import static io.pointsman.e2e.WorkflowFailures.typedFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.MirrorTrafficRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.MirrorTrafficWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A workflow that is not a plain MoveTables (Vitess marks it in its {@code _vt.vreplication} rows)
 * is refused by every action and by the dry run, from the first read, before any lock: the failure
 * names what the workflow is, is not retried, and etcd and every primary are exactly as before.
 */
@Timeout(600)
class UnsupportedWorkflowRefusalTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String TARGET = "customer";
  /** The reads planning makes before the locks; nothing else may be scheduled. */
  private static final List<String> PLANNING_READS = List.of("BuildTrafficSwitcher", "ReadUnfinishedCleanup",
      "ReadMigrateWorkflow");
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  void partialMoveTablesIsRefusedByEveryActionAndItsDryRun() throws Exception {
    refusedEverywhere("workflow_sub_type = 1", "workflow_sub_type = 0", ErrorCode.FAILED_PRECONDITION,
        "workflow customer.commerce2customer is a partial MoveTables (shards [-80, 80-]); pointsman does not"
            + " switch partial MoveTables yet: use vtctldclient; nothing was changed");
  }

  @Test
  void multiTenantMoveTablesIsRefusedByEveryActionAndItsDryRun() throws Exception {
    refusedEverywhere("options = '{\"tenant_id\":\"1001\"}'", "options = '{}'", ErrorCode.FAILED_PRECONDITION,
        "workflow customer.commerce2customer is a multi-tenant MoveTables (tenant 1001), which Vitess switches"
            + " with keyspace routing rules; pointsman does not switch multi-tenant MoveTables yet: use"
            + " vtctldclient; nothing was changed");
  }

  /** Complete and Cancel finalize a Migrate instead (MigrateOnVitessTest); its Complete dry run says how. */
  @Test
  void migrateIsRefusedByTheSwitchesAndTheirDryRun() throws Exception {
    refusedEverywhere("workflow_type = 3", "workflow_type = 1", ErrorCode.INVALID_ARGUMENT,
        "workflow customer.commerce2customer is a Migrate workflow: Vitess's Migrate has no SwitchTraffic or"
            + " ReverseTraffic; finish it with Complete (or end it with Cancel); nothing was changed", false);
    setOnTargetRows("workflow_type = 3");
    try {
      ActionResult plan = world().workflow(CompleteMigrationWorkflow.class, "Complete-migrate-" + UUID.randomUUID())
          .complete(CompleteRequest.of(WORKFLOW, TARGET).with(false, false, true, true));
      assertThat(plan.dryRunResults()).containsExactly("Lock workflow customer/" + WORKFLOW, "Lock keyspace customer",
          "Add tables [corder, customer] to the VSchema of keyspace customer where missing, and rebuild the"
              + " serving VSchema",
          "Denied tables records on [corder, customer] will be removed from customer [-80, 80-]",
          "Delete vreplication streams on targets: customer [-80, 80-] workflow " + WORKFLOW,
          "Unlock keyspace customer", "Unlock workflow customer/" + WORKFLOW);
    } finally {
      setOnTargetRows("workflow_type = 1");
    }
  }

  private static void refusedEverywhere(String mark, String unmark, ErrorCode code, String message)
      throws Exception {
    refusedEverywhere(mark, unmark, code, message, true);
  }

  /**
   * Marks the workflow's rows with {@code mark}, runs every action (Complete and Cancel only with
   * {@code cleanupToo}), then undoes it with {@code unmark}.
   */
  private static void refusedEverywhere(String mark, String unmark, ErrorCode code, String message,
      boolean cleanupToo) throws Exception {
    setOnTargetRows(mark);
    try {
      WorldSnapshot before = WorldSnapshot.take(world());
      Map<String, Consumer<String>> actions = new LinkedHashMap<>();
      SwitchTrafficRequest sw = SwitchTrafficRequest.of(WORKFLOW, TARGET);
      actions.put(Pointsman.SWITCH_TRAFFIC, id -> world().workflow(SwitchTrafficWorkflow.class, id).switchTraffic(sw));
      actions.put(Pointsman.SWITCH_TRAFFIC + " dry run",
          id -> world().workflow(SwitchTrafficWorkflow.class, id).switchTraffic(sw.withDryRun(true)));
      actions.put(Pointsman.REVERSE_TRAFFIC,
          id -> world().workflow(ReverseTrafficWorkflow.class, id).reverseTraffic(sw));
      if (cleanupToo) {
        actions.put(Pointsman.COMPLETE_MIGRATION, id -> world().workflow(CompleteMigrationWorkflow.class, id)
            .complete(CompleteRequest.of(WORKFLOW, TARGET)));
        actions.put(Pointsman.COMPLETE_MIGRATION + " dry run", id -> world()
            .workflow(CompleteMigrationWorkflow.class, id).complete(CompleteRequest.of(WORKFLOW, TARGET)
                .with(false, false, true, true)));
        actions.put(Pointsman.CANCEL_MIGRATION,
            id -> world().workflow(CancelMigrationWorkflow.class, id).cancel(CancelRequest.of(WORKFLOW, TARGET)));
        MirrorTrafficRequest mirror = MirrorTrafficRequest.of(WORKFLOW, TARGET);
        actions.put(Pointsman.MIRROR_TRAFFIC,
            id -> world().workflow(MirrorTrafficWorkflow.class, id).mirrorTraffic(mirror));
        actions.put(Pointsman.MIRROR_TRAFFIC + " dry run",
            id -> world().workflow(MirrorTrafficWorkflow.class, id).mirrorTraffic(mirror.withDryRun(true)));
      }
      for (var action : actions.entrySet()) {
        String id = action.getKey().replace(' ', '-') + "-" + UUID.randomUUID();
        WorkflowFailedException failed = null;
        try {
          action.getValue().accept(id);
        } catch (WorkflowFailedException e) {
          failed = e;
        }
        assertThat(failed).as(action.getKey() + " refused").isNotNull();
        ApplicationFailure cause = typedFailure(failed);
        assertThat(cause.getOriginalMessage()).as(action.getKey()).isEqualTo(message);
        assertThat(cause.getType()).as(action.getKey()).isEqualTo(code.name());
        assertThat(cause.isNonRetryable()).as(action.getKey() + " not retried").isTrue();
        List<HistoryEvent> events = world().client().fetchHistory(id).getEvents();
        assertThat(stepsRun(events)).as(action.getKey() + ": only planning reads ran").isSubsetOf(PLANNING_READS)
            .contains("BuildTrafficSwitcher");
        assertThat(events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
            .mapToInt(e -> e.getActivityTaskStartedEventAttributes().getAttempt()).max().orElse(1))
            .as(action.getKey() + ": no retry").isEqualTo(1);
        // a local read waits for its next attempt on a timer
        assertThat(events).extracting(HistoryEvent::getEventType).as(action.getKey() + ": no local retry")
            .doesNotContain(EventType.EVENT_TYPE_TIMER_STARTED);
      }
      WorldSnapshot after = WorldSnapshot.take(world());
      assertThat(after.differencesTo(before)).as("nothing changed").isEmpty();
      assertThat(after.topology()).isEqualTo(before.topology());
      assertThat(after.primaries()).isEqualTo(before.primaries());
      assertThat(WorldSnapshot.lockKeys(world())).as("no lock left").isEmpty();
    } finally {
      setOnTargetRows(unmark);
    }
  }

  /** The activity type of every step the run scheduled as an activity or ran as a local one. */
  private static List<String> stepsRun(List<HistoryEvent> events) {
    return events.stream().map(e -> switch (e.getEventType()) {
      case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
      case EVENT_TYPE_MARKER_RECORDED -> e.getMarkerRecordedEventAttributes().getMarkerName().equals("LocalActivity")
          ? e.getMarkerRecordedEventAttributes().getDetailsOrThrow("type").getPayloads(0).getData().toStringUtf8()
              .replace("\"", "")
          : null;
      default -> null;
    }).filter(Objects::nonNull).toList();
  }

  /** What Vitess writes when it creates such a workflow, written into the sandbox's rows for it. */
  private static void setOnTargetRows(String assignment) throws Exception {
    TargetRows.set(world(), TARGET, WORKFLOW, assignment);
  }
}
