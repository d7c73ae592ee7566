package io.pointsman.api.model;

/**
 * A stream of another workflow on a Reshard's source shard, which the write switch stops there and
 * recreates on the target shards (Vitess's stream migrator). Kept in history so that the dry run,
 * the copy onto the targets and the undo all act on what was read under the locks.
 *
 * @param shard the source shard whose primary runs it
 * @param id its id there
 * @param workflow its workflow
 * @param source its BinlogSource as Vitess stores it (protobuf text), filters as they are on this shard
 * @param pos the position it has applied: after {@code stopStreams}, the one every copy of it stopped at
 * @param dbName the database it writes to (the resharded keyspace's, the same on every shard)
 * @param cell the cells it streams from; "" for the default
 * @param tabletTypes the tablet types it streams from; "" for the default
 * @param workflowType Vitess's workflow type number
 * @param workflowSubType Vitess's workflow sub-type number
 * @param options its workflow options (JSON)
 * @param frozen it is FROZEN (the writes of its own workflow were switched): it is copied FROZEN, never
 *     started, and never stopped or started on the sources either
 */
public record MigratedStream(
    String shard,
    long id,
    String workflow,
    String source,
    String pos,
    String dbName,
    String cell,
    String tabletTypes,
    int workflowType,
    int workflowSubType,
    String options,
    boolean frozen) {

  /** The same stream at another position. */
  public MigratedStream at(String position) {
    return new MigratedStream(shard, id, workflow, source, position, dbName, cell, tabletTypes, workflowType,
        workflowSubType, options, frozen);
  }
}
