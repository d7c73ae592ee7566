package io.pointsman.engine.tablet;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import java.time.Instant;
import java.util.List;

/**
 * One workflow's streams on one tablet, as ReadVReplicationWorkflow returns them.
 *
 * @param workflow the workflow name
 * @param dbName the database the streams write to ({@code vt_<keyspace>})
 * @param cells cells the streams pick source tablets from ({@code ""}: the tablet's own)
 * @param tabletTypes tablet types the streams pick source tablets of
 * @param type MoveTables, Reshard, ...
 * @param subType none, partial, atomic copy
 * @param streams the streams, by id
 */
public record VReplicationWorkflow(
    String workflow,
    String dbName,
    String cells,
    List<TabletType> tabletTypes,
    WorkflowType type,
    WorkflowSubType subType,
    List<Stream> streams) {

  public VReplicationWorkflow {
    tabletTypes = List.copyOf(tabletTypes);
    streams = List.copyOf(streams);
  }

  /**
   * One row of {@code _vt.vreplication}.
   *
   * @param id the stream id (VReplicationWaitForPos takes it)
   * @param source where the stream reads from
   * @param position the last position applied (MySQL/MariaDB GTID set with flavor prefix)
   * @param stopPosition where the stream stops by itself; empty for none
   * @param state the state the tablet reports
   * @param message the state's message, e.g. {@code FROZEN} after SwitchTraffic
   * @param rowsCopied rows copied in the copy phase
   * @param timeUpdated when the stream last recorded progress; null if never
   * @param transactionTimestamp commit time of the last source transaction applied; null if none
   * @param timeHeartbeat when the stream last saw a heartbeat from its source; null if never (an idle
   *     source sends only heartbeats, and its lag is measured from them)
   */
  public record Stream(
      int id,
      BinlogSource source,
      String position,
      String stopPosition,
      StreamState state,
      String message,
      long rowsCopied,
      Instant timeUpdated,
      Instant transactionTimestamp,
      Instant timeHeartbeat) {}
}
