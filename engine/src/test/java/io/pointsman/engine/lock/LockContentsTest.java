package io.pointsman.engine.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockContentsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void writesVitessFieldsInVitessOrderThenTheTemporalHolder() throws Exception {
    LockContents c = LockContents.running("SwitchWrites", new LockHolder("default", "wf-1", "run-1"),
        Instant.parse("2025-03-04T05:06:07.890Z"));

    JsonNode json = JSON.readTree(c.toJson());

    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("Action", "HostName", "UserName", "Time", "Options", "Status",
        "TemporalNamespace", "TemporalWorkflowId", "TemporalRunId");
    assertThat(json.get("Action").asText()).isEqualTo("SwitchWrites");
    assertThat(json.get("Time").asText()).isEqualTo("2025-03-04T05:06:07Z");
    assertThat(json.get("Options").isObject()).isTrue();
    assertThat(json.get("Options").size()).isZero();
    assertThat(json.get("Status").asText()).isEqualTo("Running");
    assertThat(json.get("HostName").asText()).isNotBlank();
    assertThat(json.get("UserName").asText()).isNotBlank();
    assertThat(json.get("TemporalWorkflowId").asText()).isEqualTo("wf-1");
  }

  @Test
  void leavesOutHolderFieldsThatAreUnknown() throws Exception {
    JsonNode json = JSON.readTree(LockContents.running("x", LockHolder.NONE, Instant.now()).toJson());

    assertThat(json.has("TemporalWorkflowId")).isFalse();
    assertThat(json.has("Options")).isTrue();
  }

  @Test
  void parsesWhatVitessWritesAndRejectsWhatIsNotJson() {
    String vitess = "{\n  \"Action\": \"SwitchWrites\",\n  \"HostName\": \"vtctld-0\",\n  \"UserName\": \"vitess\",\n"
        + "  \"Time\": \"2025-01-01T00:00:00Z\",\n  \"Options\": {},\n  \"Status\": \"Running\",\n  \"Future\": 1\n}";

    LockContents c = LockContents.parse(vitess).orElseThrow();

    assertThat(c.action()).isEqualTo("SwitchWrites");
    assertThat(c.hostName()).isEqualTo("vtctld-0");
    assertThat(c.temporalWorkflowId()).isNull();
    assertThat(c.describe()).contains("SwitchWrites").contains("vtctld-0");
    assertThat(LockContents.parse("not json")).isEmpty();
  }

  @Test
  void roundTrips() {
    LockContents c = LockContents.running("Reshard", new LockHolder("ns", "wf", null), Instant.now());

    assertThat(LockContents.parse(c.toJson())).contains(c);
  }
}
