package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;

/**
 * Input of ShowWorkflow: which workflow, and which of vtctldclient's two views of it.
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer", "view": "STATUS", "includeLogs": true}</pre>
 *
 * @param view SHOW (vtctld's GetWorkflowsResponse) or STATUS (its WorkflowStatusResponse)
 * @param includeLogs SHOW only: include each stream's {@code _vt.vreplication_log} rows, vtctldclient's
 *     {@code --include-logs} (default true)
 */
public record ShowRequest(String workflow, String targetKeyspace, View view, boolean includeLogs) {
  /** The two views vtctldclient has of a workflow. */
  public enum View { SHOW, STATUS }

  public ShowRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(view, "view");
  }

  public static ShowRequest show(String workflow, String targetKeyspace, boolean includeLogs) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace, "view", "SHOW",
        "includeLogs", includeLogs)));
  }

  public static ShowRequest status(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace, "view",
        "STATUS")));
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ShowRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields(io.pointsman.api.workflows.Pointsman.SHOW_WORKFLOW, json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    View view = f.enumValue("view", View.class, View.SHOW);
    boolean includeLogs = f.bool("includeLogs", true);
    f.rejectUnknown();
    return new ShowRequest(workflow, targetKeyspace, view, includeLogs);
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("view", view.name());
    m.put("includeLogs", includeLogs);
    return m;
  }
}
