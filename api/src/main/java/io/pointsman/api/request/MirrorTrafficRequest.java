package io.pointsman.api.request;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.model.TabletType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Input of MirrorTraffic, as vtctldclient's {@code MoveTables mirrortraffic} flags spell it:
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer",
 *  "tabletTypes": ["PRIMARY", "REPLICA", "RDONLY"], "percent": 5.0, "dryRun": false}</pre>
 * Only workflow and targetKeyspace are required; tabletTypes default to all three and percent to
 * 1.0, as in vtctldclient. A percent of 0 removes the mirror rules of the types given.
 *
 * @param percent the share of the queries to each moved table, of each type, that vtgate also
 *     sends to the target keyspace: 0 to 100
 */
public record MirrorTrafficRequest(
    String workflow,
    String targetKeyspace,
    List<TabletType> tabletTypes,
    float percent,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold) {

  /** vtctldclient's default when no tablet type is named: every type, in its order. */
  public static final List<TabletType> ALL_TABLET_TYPES =
      List.of(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);
  public static final float DEFAULT_PERCENT = 1.0f;

  public MirrorTrafficRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    tabletTypes = List.copyOf(tabletTypes);
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  /** A request with every default; adjust with the {@code with...} methods. */
  public static MirrorTrafficRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public MirrorTrafficRequest withTabletTypes(List<TabletType> types) {
    return copy("tabletTypes", types.stream().map(Enum::name).toList());
  }

  public MirrorTrafficRequest withPercent(float p) {
    return copy("percent", p);
  }

  public MirrorTrafficRequest withDryRun(boolean dry) {
    return copy("dryRun", dry);
  }

  /** Decodes and validates; every problem names its field. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static MirrorTrafficRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("MirrorTraffic", json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    List<TabletType> types = f.stringList("tabletTypes", ALL_TABLET_TYPES, RequestFields::trafficTabletType);
    if (types.isEmpty()) {
      types = ALL_TABLET_TYPES;
    }
    double percent = f.number("percent", DEFAULT_PERCENT);
    // vtgate mirrors a query when a random number below 100 is below the percent: outside 0..100 a
    // value says nothing more, and is most likely a slip (a share typed as 0.05 is still allowed)
    if (!(percent >= 0 && percent <= 100)) {
      throw f.fail("percent", "must be from 0 to 100 (0 removes the mirror rules), got " + percent);
    }
    boolean dry = f.bool("dryRun", false);
    LockTimes locks = LockTimes.read(f);
    f.rejectUnknown();
    return new MirrorTrafficRequest(workflow, targetKeyspace, types.stream().distinct().toList(), (float) percent,
        dry, locks.ttl(), locks.maxHold());
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("tabletTypes", tabletTypes.stream().map(Enum::name).toList());
    m.put("percent", percent);
    m.put("dryRun", dryRun);
    LockTimes.write(m, lockTtl, maxLockHold);
    return m;
  }

  /** This request with one JSON field replaced, decoded again so the copy is validated like any input. */
  private MirrorTrafficRequest copy(String field, Object jsonValue) {
    return fromJson(JsonRequests.replaced(toJson(), field, jsonValue));
  }
}
