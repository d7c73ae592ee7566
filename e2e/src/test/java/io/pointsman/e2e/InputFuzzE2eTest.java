package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.workflows.Pointsman;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.RawValue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hostile SwitchTraffic inputs sent as the Temporal UI sends them (one json/plain payload) to the
 * real workflow on a sandbox with a running MoveTables: each fails the workflow at once with the
 * field named, before any activity is scheduled, and etcd and MySQL are exactly as before.
 */
@Timeout(300)
class InputFuzzE2eTest {
  private static final Logger log = LoggerFactory.getLogger(InputFuzzE2eTest.class);
  private static final String VALID = "\"workflow\":\"commerce2customer\",\"targetKeyspace\":\"customer\"";

  @Test
  void hostileInputsFailFastNamingTheFieldAndChangeNothing() throws Exception {
    Map<String, String> inputs = new LinkedHashMap<>();
    inputs.put("tabletTypes", "{" + VALID + ",\"tabletTypes\":[\"PRIMARY\",\"'; DROP TABLE customer; --\"]}");
    inputs.put("workflow", "{\"workflow\":\"../commerce2customer\",\"targetKeyspace\":\"customer\"}");
    inputs.put("targetKeyspace",
        "{\"workflow\":\"commerce2customer\",\"targetKeyspace\":\"customer`; DROP DATABASE vt_customer; -- \"}");
    inputs.put("cells", "{" + VALID + ",\"cells\":[\"zone1/../../global\"]}");
    inputs.put("timeout", "{" + VALID + ",\"timeout\":\"" + "1".repeat(100 * 1024) + "s\"}");
    inputs.put("lockTtl", "{" + VALID + ",\"lockTtl\":true}");
    inputs.put("dryRun", "{" + VALID + ",\"dryRun\":\"false\"}");
    inputs.put("maxLockHold", "{" + VALID + ",\"maxLockHold\":\"10m\\u0000; rm -rf /\"}");
    inputs.put("dryrun", "{" + VALID + ",\"dryrun\":true}");

    try (SwitchWorld world = SwitchWorld.moveTables()) {
      world.createMoveTables();
      InputFuzzSnapshot before = InputFuzzSnapshot.take(world);
      for (var input : inputs.entrySet()) {
        String field = input.getKey();
        String id = "SwitchTraffic-fuzz-" + field + "-" + UUID.randomUUID();
        WorkflowStub stub = world.client().newUntypedWorkflowStub(Pointsman.SWITCH_TRAFFIC,
            WorkflowOptions.newBuilder().setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(id)
                .setWorkflowExecutionTimeout(Duration.ofMinutes(5)).build());
        long started = System.nanoTime();
        stub.start(new RawValue(Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8(input.getValue())).build()));
        String message = failureMessages(stub);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        log.info("{} refused in {} ms: {}", field, took.toMillis(), message.substring(0, Math.min(300,
            message.length())));
        // a misspelled field is named as unknown; every other problem names its field quoted
        assertThat(message).as(field).contains(field.equals("dryrun") ? "unknown field dryrun" : "'" + field + "'");
        assertThat(message.length()).as(field + ": message length").isLessThan(2_000);
        assertThat(took).as(field + " failed fast").isLessThan(Duration.ofSeconds(30));
        List<EventType> events = world.client().fetchHistory(id).getEvents().stream()
            .map(HistoryEvent::getEventType).toList();
        assertThat(events).as(field + ": nothing scheduled").doesNotContain(
            EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
        assertThat(events).last().isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
      }
      InputFuzzSnapshot after = InputFuzzSnapshot.take(world);
      assertThat(after.etcd()).isEqualTo(before.etcd());
      assertThat(after.primaries()).isEqualTo(before.primaries());
    }
  }

  /** Every message along the failure's cause chain, joined. */
  private static String failureMessages(WorkflowStub stub) {
    try {
      stub.getResult(2, TimeUnit.MINUTES, ActionResult.class);
    } catch (WorkflowFailedException e) {
      StringBuilder sb = new StringBuilder();
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        sb.append(t.getMessage()).append(" | ");
      }
      return sb.toString();
    } catch (Exception e) {
      throw new AssertionError("not a workflow failure: " + e, e);
    }
    throw new AssertionError("hostile input accepted");
  }
}
