package io.pointsman.sandbox.cluster;

import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.WorkflowType;

/**
 * One row of {@code _vt.vreplication} as the sandbox reads it back, with the columns as stored
 * (the workflows read streams through io.pointsman.engine.mysql.VReplicationStreams instead).
 *
 * @param id the stream id
 * @param workflow the workflow name
 * @param source the BinlogSource it streams from
 * @param pos the GTID position applied so far ({@code ''} before the copy)
 * @param stopPos where it stops, or null
 * @param state Init, Stopped, Copying, Running, Error or Lagging
 * @param message the state's explanation, or null
 * @param dbName the database it writes into
 * @param workflowType what created it
 * @param cell the cells to pick source tablets from ({@code ''}: the local cell)
 * @param tabletTypes the source tablet types ({@code ''}: the default)
 * @param timeUpdated unix seconds of the last update of the row
 */
public record VReplicationStream(
    long id, String workflow, BinlogSource source, String pos, String stopPos, String state, String message,
    String dbName, WorkflowType workflowType, String cell, String tabletTypes, long timeUpdated) {}
