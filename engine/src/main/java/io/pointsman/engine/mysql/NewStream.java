package io.pointsman.engine.mysql;

import io.pointsman.api.gtid.Position;
import io.pointsman.api.names.Names;
import java.util.Objects;

/**
 * A stream to insert into {@code _vt.vreplication}, as Vitess's {@code CreateVReplicationState}
 * builds it: throttling disabled, no transaction applied yet.
 *
 * @param workflow the workflow name
 * @param source what it reads
 * @param pos where it starts
 * @param stopPos where it stops by itself; ZERO for never (stored as NULL)
 * @param state the initial state (Vitess creates Stopped or Init streams)
 * @param dbName the database it writes to
 * @param cell cells to stream from; "" for the default
 * @param tabletTypes tablet types to stream from; "" for the default
 * @param workflowType the workflow type
 * @param workflowSubType the workflow sub-type
 * @param options the workflow options (JSON); "{}" for none
 */
public record NewStream(
    String workflow,
    BinlogSource source,
    Position pos,
    Position stopPos,
    StreamState state,
    String dbName,
    String cell,
    String tabletTypes,
    WorkflowType workflowType,
    WorkflowSubType workflowSubType,
    String options) {

  public NewStream {
    Names.workflow(workflow);
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(pos, "pos");
    stopPos = stopPos == null ? Position.ZERO : stopPos;
    Objects.requireNonNull(state, "state");
    Names.database(dbName);
    cell = cell == null ? "" : cell;
    tabletTypes = tabletTypes == null ? "" : tabletTypes;
    Objects.requireNonNull(workflowType, "workflowType");
    Objects.requireNonNull(workflowSubType, "workflowSubType");
    options = options == null || options.isEmpty() ? "{}" : options;
  }

  /** A Stopped stream with default cells, tablet types and options. */
  public static NewStream stopped(String workflow, BinlogSource source, Position pos, String dbName,
      WorkflowType type, WorkflowSubType subType) {
    return new NewStream(workflow, source, pos, Position.ZERO, StreamState.STOPPED, dbName, "", "", type, subType, "{}");
  }
}
