package io.pointsman.api.model;

/**
 * A {@code _vt.vreplication} row as it was before a step replaced it, kept in history so that
 * compensation can put it back exactly, id included.
 */
public record SavedStream(
    String shard,
    long id,
    String workflow,
    String source,
    String pos,
    String stopPos,
    long maxTps,
    long maxReplicationLag,
    String cell,
    String tabletTypes,
    long timeUpdated,
    long transactionTimestamp,
    String state,
    String message,
    String dbName,
    int workflowType,
    int workflowSubType,
    String options) {}
