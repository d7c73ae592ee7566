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
 * {@code ignoreSourceKeyspace} (vtctldclient's {@code --ignore-source-keyspace}, MoveTables only,
 * default false): cancel without reading, locking or changing the source keyspace, for a source that
 * was deleted or cannot be reached; written only when true.
 */
public record CancelRequest(
    String workflow,
    String targetKeyspace,
    boolean keepData,
    boolean keepRoutingRules,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold,
    boolean ignoreSourceKeyspace) {

  public CancelRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  public static CancelRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public CancelRequest(String workflow, String targetKeyspace, boolean keepData, boolean keepRoutingRules,
      boolean dryRun, Duration lockTtl, Duration maxLockHold) {
    this(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, lockTtl, maxLockHold, false);
  }

  public CancelRequest with(boolean keepData, boolean keepRoutingRules, boolean dryRun) {
    return new CancelRequest(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, lockTtl, maxLockHold,
        ignoreSourceKeyspace);
  }

  /** This request cancelling without the source keyspace (see the class comment). */
  public CancelRequest ignoringSourceKeyspace() {
    return new CancelRequest(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, lockTtl, maxLockHold, true);
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
    boolean ignoreSource = f.bool("ignoreSourceKeyspace", false);
    // vtctldclient's flags pointsman takes at their defaults only
    VitessOnlyFields.shards(f);
    f.rejectUnknown();
    return new CancelRequest(workflow, targetKeyspace, keepData, keepRoutingRules, dryRun, locks.ttl(),
        locks.maxHold(), ignoreSource);
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("keepData", keepData);
    m.put("keepRoutingRules", keepRoutingRules);
    m.put("dryRun", dryRun);
    LockTimes.write(m, lockTtl, maxLockHold);
    if (ignoreSourceKeyspace) {
      // only when set, so requests without it stay as they were in recorded histories and the UI
      m.put("ignoreSourceKeyspace", true);
    }
    return m;
  }
}
