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
 * Input of SwitchTraffic and ReverseTraffic, one JSON object as vtctldclient's flags spell it:
 * <pre>{"workflow": "commerce2customer", "targetKeyspace": "customer",
 *  "tabletTypes": ["REPLICA", "RDONLY", "PRIMARY"], "cells": [], "timeout": "30s",
 *  "maxReplicationLagAllowed": "30s", "enableReverseReplication": true, "dryRun": false,
 *  "lockTtl": "2m", "maxLockHold": "10m"}</pre>
 * Only workflow and targetKeyspace are required; the rest default as vtctldclient does. The
 * durations' defaults are {@link TimeLimits}, their rules {@link TimeLimitRules}.
 *
 * @param timeout how long to wait for catch-up after writes stopped (minimum 1s)
 * @param lockTtl the TTL of every lock this action takes; renewal keeps it alive
 * @param maxLockHold renewal stops after this long, so a stuck run cannot hold locks forever
 * @param initializeTargetSequences vtctldclient's {@code --initialize-target-sequences} of MoveTables
 *     SwitchTraffic: move the target's sequences past the moved rows' ids as writes switch
 */
public record SwitchTrafficRequest(
    String workflow,
    String targetKeyspace,
    List<TabletType> tabletTypes,
    List<String> cells,
    Duration timeout,
    Duration maxReplicationLagAllowed,
    boolean enableReverseReplication,
    boolean dryRun,
    Duration lockTtl,
    Duration maxLockHold,
    boolean initializeTargetSequences) {

  public static final List<TabletType> ALL_TABLET_TYPES = TabletType.SWITCHED;

  public SwitchTrafficRequest {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(targetKeyspace, "targetKeyspace");
    tabletTypes = List.copyOf(tabletTypes);
    cells = List.copyOf(cells);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(maxReplicationLagAllowed, "maxReplicationLagAllowed");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(maxLockHold, "maxLockHold");
  }

  /** A request with every default; adjust with the {@code with...} methods. */
  public static SwitchTrafficRequest of(String workflow, String targetKeyspace) {
    return fromJson(JsonRequests.object(Map.of("workflow", workflow, "targetKeyspace", targetKeyspace)));
  }

  public SwitchTrafficRequest withTabletTypes(List<TabletType> types) {
    return copy("tabletTypes", types.stream().map(Enum::name).toList());
  }

  public SwitchTrafficRequest withCells(List<String> newCells) {
    return copy("cells", newCells);
  }

  public SwitchTrafficRequest withTimeout(Duration d) {
    return copy("timeout", GoDurations.format(d));
  }

  public SwitchTrafficRequest withMaxReplicationLagAllowed(Duration d) {
    return copy("maxReplicationLagAllowed", GoDurations.format(d));
  }

  public SwitchTrafficRequest withLockTtl(Duration d) {
    return copy("lockTtl", GoDurations.format(d));
  }

  public SwitchTrafficRequest withMaxLockHold(Duration d) {
    return copy("maxLockHold", GoDurations.format(d));
  }

  public SwitchTrafficRequest withEnableReverseReplication(boolean enable) {
    return copy("enableReverseReplication", enable);
  }

  public SwitchTrafficRequest withDryRun(boolean dry) {
    return copy("dryRun", dry);
  }

  public SwitchTrafficRequest withInitializeTargetSequences(boolean initialize) {
    return copy("initializeTargetSequences", initialize);
  }

  public boolean includesPrimary() {
    return tabletTypes.contains(TabletType.PRIMARY);
  }

  /** The read tablet types requested (REPLICA, RDONLY), in request order. */
  public List<TabletType> readTabletTypes() {
    return tabletTypes.stream().filter(TabletType::isSwitchedRead).toList();
  }

  /** Decodes and validates; every problem names its field. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static SwitchTrafficRequest fromJson(JsonNode json) {
    RequestFields f = new RequestFields("SwitchTraffic", json);
    String workflow = f.workflow();
    String targetKeyspace = f.targetKeyspace();
    List<TabletType> types = f.stringList("tabletTypes", ALL_TABLET_TYPES, RequestFields::trafficTabletType);
    if (types.isEmpty()) {
      types = ALL_TABLET_TYPES;
    }
    List<String> cells = f.stringList("cells", List.of(), v -> RequestFields.name("cell", v));
    Duration timeout = f.duration("timeout", TimeLimits.DEFAULT_TIMEOUT, TimeLimitRules::timeout);
    Duration lag = f.duration("maxReplicationLagAllowed", TimeLimits.DEFAULT_MAX_REPLICATION_LAG,
        TimeLimitRules::maxReplicationLagAllowed);
    boolean reverse = f.bool("enableReverseReplication", true);
    boolean dry = f.bool("dryRun", false);
    LockTimes locks = LockTimes.read(f);
    // vtctldclient's flags pointsman takes at their defaults only
    VitessOnlyFields.shards(f);
    VitessOnlyFields.force(f);
    boolean sequences = f.bool("initializeTargetSequences", false);
    f.rejectUnknown();
    return new SwitchTrafficRequest(workflow, targetKeyspace, types.stream().distinct().toList(), cells, timeout,
        lag, reverse, dry, locks.ttl(), locks.maxHold(), sequences);
  }

  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> m = JsonRequests.fieldsOf(workflow, targetKeyspace);
    m.put("tabletTypes", tabletTypes.stream().map(Enum::name).toList());
    m.put("cells", cells);
    m.put("timeout", GoDurations.format(timeout));
    m.put("maxReplicationLagAllowed", GoDurations.format(maxReplicationLagAllowed));
    m.put("enableReverseReplication", enableReverseReplication);
    m.put("dryRun", dryRun);
    LockTimes.write(m, lockTtl, maxLockHold);
    if (initializeTargetSequences) {
      // only when set: inputs recorded before the field existed read the same
      m.put("initializeTargetSequences", true);
    }
    return m;
  }

  /** This request with one JSON field replaced, decoded again so the copy is validated like any input. */
  private SwitchTrafficRequest copy(String field, Object jsonValue) {
    return fromJson(JsonRequests.replaced(toJson(), field, jsonValue));
  }
}
