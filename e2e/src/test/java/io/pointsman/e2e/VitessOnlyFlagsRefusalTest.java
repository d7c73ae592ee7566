package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * vtctldclient's flags that pointsman takes by name but cannot act on when set ({@code --shards},
 * {@code --force}, {@code --initialize-target-sequences} on ReverseTraffic, which vtctldclient does
 * not give it, and {@code --ignore-source-keyspace} with a journal grace, which needs the source): a request
 * carrying one, started as the UI or a script would start it, fails at once naming the field and
 * why, runs no activity, and leaves etcd and every primary exactly as they were.
 */
@Timeout(600)
class VitessOnlyFlagsRefusalTest {
  @RegisterExtension
  static final SwitchWorldExtension WORLD = SwitchWorldExtension.moveTables().createMoveTables().build();

  private static SwitchWorld world() {
    return WORLD.world();
  }

  @Test
  void eachSetFlagIsRefusedBeforeAnythingRunsAndNothingChanges() throws Exception {
    WorldSnapshot before = WorldSnapshot.take(world());
    refused(Pointsman.SWITCH_TRAFFIC, Map.of("shards", List.of("-80")), "'shards' cannot be honoured (-80)");
    refused(Pointsman.REVERSE_TRAFFIC, Map.of("shards", List.of("-80", "80-")),
        "'shards' cannot be honoured (-80,80-)");
    refused(Pointsman.SWITCH_TRAFFIC, Map.of("force", true), "'force' cannot be honoured");
    refused(Pointsman.REVERSE_TRAFFIC, Map.of("initializeTargetSequences", true),
        "initializeTargetSequences applies to MoveTables SwitchTraffic only (as in vtctldclient), not to"
            + " ReverseTraffic");
    refused(Pointsman.COMPLETE_MIGRATION, Map.of("shards", List.of("80-")), "'shards' cannot be honoured (80-)");
    refused(Pointsman.COMPLETE_MIGRATION, Map.of("ignoreSourceKeyspace", true, "journalGrace", "1h"),
        "'journalGrace' cannot be honoured with ignoreSourceKeyspace");
    refused(Pointsman.CANCEL_MIGRATION, Map.of("shards", List.of("-80")), "'shards' cannot be honoured (-80)");
    WorldSnapshot after = WorldSnapshot.take(world());
    assertThat(after.differencesTo(before)).as("nothing changed").isEmpty();
    assertThat(after.topology()).isEqualTo(before.topology());
    assertThat(after.primaries()).isEqualTo(before.primaries());
    assertThat(WorldSnapshot.lockKeys(world())).as("no lock left").isEmpty();
  }

  @Test
  void theSameFieldsAtVtctldclientsDefaultsAreAccepted() throws Exception {
    Map<String, Object> defaults = Map.of("shards", List.of(), "force", false, "initializeTargetSequences", false,
        "dryRun", true);
    ActionResult r = start(Pointsman.SWITCH_TRAFFIC, defaults).getResult(ActionResult.class);
    assertThat(r.dryRunResults()).isNotEmpty();
  }

  private static void refused(String type, Map<String, Object> extra, String expected) {
    String id = type + "-" + UUID.randomUUID();
    WorkflowStub stub = start(type, extra, id);
    WorkflowFailedException failed = null;
    try {
      stub.getResult(ActionResult.class);
    } catch (WorkflowFailedException e) {
      failed = e;
    }
    assertThat(failed).as(type + " " + extra + " refused").isNotNull();
    assertThat(messages(failed)).as(type + " " + extra).anySatisfy(m -> assertThat(m).contains(expected));
    assertThat(world().client().fetchHistory(id).getEvents())
        .as(type + " " + extra + ": no activity ran")
        .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  }

  private static WorkflowStub start(String type, Map<String, Object> extra) {
    return start(type, extra, type + "-" + UUID.randomUUID());
  }

  /** Starts the action untyped with JSON input, as the Temporal UI or a script starts it. */
  private static WorkflowStub start(String type, Map<String, Object> extra, String id) {
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("workflow", "commerce2customer");
    input.put("targetKeyspace", "customer");
    input.putAll(extra);
    WorkflowStub stub = world().client().newUntypedWorkflowStub(type, WorkflowOptions.newBuilder()
        .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id).build());
    stub.start(input);
    return stub;
  }

  private static List<String> messages(Throwable t) {
    List<String> out = new java.util.ArrayList<>();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.add(String.valueOf(c.getMessage()));
    }
    return out;
  }
}
