package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Input of CompleteMigration, as vtctldclient's {@code MoveTables complete}:
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer", "keepData": false,
 *  "keepRoutingRules": false, "renameTables": false, "dryRun": false}</pre>
 * pointsman adds {@code journalGrace} (a duration, default 0): Complete refuses until the switch's
 * journal is at least that old, so change-stream consumers still behind it can read it first
 * (docs/journal.md). {@code ignoreSourceKeyspace} (vtctldclient's {@code --ignore-source-keyspace},
 * MoveTables only, default false): complete without reading, locking or changing the source keyspace,
 * for a source that was deleted or cannot be reached; written only when true.
 */
public record CompleteRequest(
    String workflow,
    String targetKeyspace,
    boolean keepData,
    boolean keepRoutingRules,
    boolean renameTables,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold,
    Duration journalGrace,
    boolean ignoreSourceKeyspace) {

  public CompleteRequest {
    journalGrace = journalGrace == null ? Duration.ZERO : journalGrace; // requests recorded before the field
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  public CompleteRequest(String workflow, String targetKeyspace, boolean keepData, boolean keepRoutingRules,
      boolean renameTables, boolean dryRun, Duration lockTtl, Duration maxLockHold) {
    this(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun, lockTtl, maxLockHold,
        Duration.ZERO, false);
  }

  public static CompleteRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public CompleteRequest with(boolean keepData, boolean keepRoutingRules, boolean renameTables, boolean dryRun) {
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun, lockTtl,
        maxLockHold, journalGrace, ignoreSourceKeyspace);
  }

  /** This request holding Complete until the journal is at least {@code grace} old. */
  public CompleteRequest withJournalGrace(Duration grace) {
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun, lockTtl,
        maxLockHold, grace, ignoreSourceKeyspace);
  }

  /** This request completing without the source keyspace (see the class comment). */
  public CompleteRequest ignoringSourceKeyspace() {
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun, lockTtl,
        maxLockHold, journalGrace, true);
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static CompleteRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("CompleteMigration", json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    boolean keepData = f.bool("keepData", false);
    boolean keepRoutingRules = f.bool("keepRoutingRules", false);
    boolean renameTables = f.bool("renameTables", false);
    boolean dryRun = f.bool("dryRun", false);
    LockTimes locks = LockTimes.read(f);
    Duration journalGrace = f.duration("journalGrace", Duration.ZERO, g -> java.util.Optional.empty());
    boolean ignoreSource = f.bool("ignoreSourceKeyspace", false);
    if (ignoreSource && !journalGrace.isZero()) {
      // the grace is judged by the journal's age, and the journal is a row on the source's primaries
      throw f.fail("journalGrace", "cannot be honoured with ignoreSourceKeyspace: the journal whose age it waits "
          + "for is on the source keyspace's primaries, which Complete then does not read");
    }
    // vtctldclient's flags pointsman takes at their defaults only
    VitessOnlyFields.shards(f);
    f.rejectUnknown();
    return new CompleteRequest(workflow, targetKeyspace, keepData, keepRoutingRules, renameTables, dryRun,
        locks.ttl(), locks.maxHold(), journalGrace, ignoreSource);
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("keepData", keepData);
    m.put("keepRoutingRules", keepRoutingRules);
    m.put("renameTables", renameTables);
    m.put("dryRun", dryRun);
    LockTimes.write(m, lockTtl, maxLockHold);
    if (!journalGrace.isZero()) {
      // only when set, so requests without it stay as they were in recorded histories and the UI
      m.put("journalGrace", GoDurations.format(journalGrace));
    }
    if (ignoreSourceKeyspace) {
      m.put("ignoreSourceKeyspace", true);
    }
    return m;
  }
}
