package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;

/**
 * Input of ValidateTopology: which workflow's topology to check.
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer"}</pre>
 */
public record ValidateRequest(String workflow, String targetKeyspace) {

  public ValidateRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
  }

  public static ValidateRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ValidateRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("ValidateTopology", json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    f.rejectUnknown();
    return new ValidateRequest(workflow, targetKeyspace);
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    return m;
  }
}
