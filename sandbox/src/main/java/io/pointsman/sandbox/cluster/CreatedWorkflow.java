package io.pointsman.sandbox.cluster;

import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.topo.TabletAlias;
import java.util.List;

/**
 * What {@link MoveTablesCreator} or {@link ReshardCreator} created: one stream per target shard
 * and overlapping source shard.
 *
 * @param workflow the VReplication workflow name
 * @param targetKeyspace the keyspace the streams write into
 * @param type MOVE_TABLES or RESHARD
 * @param streams the streams, by target shard then source shard
 */
public record CreatedWorkflow(
    String workflow, String targetKeyspace, WorkflowType type, List<Stream> streams) {
  public CreatedWorkflow {
    streams = List.copyOf(streams);
  }

  /**
   * One created stream.
   *
   * @param targetShard the shard it writes into
   * @param tablet the target primary holding the row
   * @param id the row's id in that primary's {@code _vt.vreplication}
   * @param source where it streams from and how it filters
   * @param state the state it was created in (Init, or Stopped without auto-start)
   */
  public record Stream(String targetShard, TabletAlias tablet, long id, BinlogSource source, StreamState state) {}
}
