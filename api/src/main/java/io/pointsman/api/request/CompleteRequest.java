package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Input of CompleteMigration, as vtctldclient's {@code MoveTables complete}:
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer", "keepData": false,
 *  "keepRoutingRules": false, "renameTables": false, "dryRun": false}</pre>
 */
public record CompleteRequest(
    String workflow,
    String targetKeyspace,
    boolean keepData,
    boolean keepRoutingRules,
    boolean renameTables,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold) {

  public CompleteRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  public static CompleteRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public CompleteRequest with(boolean keepData, boolean keepRoutingRules, boolean renameTables, boolean dryRun) {
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun, lockTtl,
        maxLockHold);
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static CompleteRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("CompleteMigration", json);
    String workflow = f.requiredName("workflow", v -> RequestFields.name("workflow", v));
    String targetKeyspace = f.requiredName("targetKeyspace", v -> RequestFields.name("keyspace", v));
    boolean keepData = f.bool("keepData", false);
    boolean keepRoutingRules = f.bool("keepRoutingRules", false);
    boolean renameTables = f.bool("renameTables", false);
    boolean dryRun = f.bool("dryRun", false);
    LockTimes locks = LockTimes.read(f);
    // vtctldclient's flags pointsman takes at their defaults only
    VitessOnlyFields.shards(f);
    VitessOnlyFields.ignoreSourceKeyspace(f);
    f.rejectUnknown();
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun,
        locks.ttl(), locks.maxHold());
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workflow", workflow);
    m.put("targetKeyspace", targetKeyspace);
    m.put("keepData", keepData);
    m.put("keepRoutingRules", keepRoutingRules);
    m.put("renameTables", renameTables);
    m.put("dryRun", dryRun);
    m.put("lockTtl", GoDurations.format(lockTtl));
    m.put("maxLockHold", GoDurations.format(maxLockHold));
    return m;
  }
}
