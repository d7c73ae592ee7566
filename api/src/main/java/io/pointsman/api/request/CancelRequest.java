package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Input of CancelMigration, as vtctldclient's {@code MoveTables cancel}:
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer", "keepData": false,
 *  "keepRoutingRules": false, "dryRun": false}</pre>
 */
public record CancelRequest(
    String workflow,
    String targetKeyspace,
    boolean keepData,
    boolean keepRoutingRules,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold) {

  public CancelRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  public static CancelRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public CancelRequest with(boolean keepData, boolean keepRoutingRules, boolean dryRun) {
    return new CancelRequest(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, lockTtl, maxLockHold);
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static CancelRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("CancelMigration", json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    boolean keepData = f.bool("keepData", false);
    boolean keepRoutingRules = f.bool("keepRoutingRules", false);
    boolean dryRun = f.bool("dryRun", false);
    LockTimes locks = LockTimes.read(f);
    // vtctldclient's flags pointsman takes at their defaults only
    VitessOnlyFields.shards(f);
    VitessOnlyFields.ignoreSourceKeyspace(f);
    f.rejectUnknown();
    return new CancelRequest(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, locks.ttl(),
        locks.maxHold());
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("keepData", keepData);
    m.put("keepRoutingRules", keepRoutingRules);
    m.put("dryRun", dryRun);
    LockTimes.write(m, lockTtl, maxLockHold);
    return m;
  }
}
