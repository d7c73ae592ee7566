package io.pointsman.engine.mysql;

import io.pointsman.api.gtid.Position;
import io.pointsman.api.names.Names;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * binlogdata.Journal, the row a traffic switch writes into {@code _vt.resharding_journal} on each
 * source primary: the point of no return. Streams reading the source see it in the binlog and move
 * over to the targets at {@code shard_gtids}. Stored as Vitess stores it, in protobuf text format
 * ({@link SidecarText}).
 *
 * @param id the migration id ({@link #migrationId})
 * @param migrationType TABLES (MoveTables) or SHARDS (Reshard)
 * @param tables the tables moved
 * @param localPosition this source shard's position once its writes stopped
 * @param shardGtids each target shard's position after catch-up
 * @param participants every source shard feeding any target, in shard order
 * @param sourceWorkflows other workflows migrated along (Reshard's stream migration)
 */
public record Journal(
    long id,
    MigrationType migrationType,
    List<String> tables,
    Position localPosition,
    List<ShardGtid> shardGtids,
    List<KeyspaceShard> participants,
    List<String> sourceWorkflows) {

  private static final long FNV64_OFFSET_BASIS = 0xcbf29ce484222325L;
  private static final long FNV64_PRIME = 0x100000001b3L;

  public Journal {
    Objects.requireNonNull(migrationType, "migrationType");
    tables = tables == null ? List.of() : List.copyOf(tables);
    localPosition = localPosition == null ? Position.ZERO : localPosition;
    shardGtids = shardGtids == null ? List.of() : List.copyOf(shardGtids);
    participants = participants == null ? List.of() : List.copyOf(participants);
    sourceWorkflows = sourceWorkflows == null ? List.of() : List.copyOf(sourceWorkflows);
  }

  /** binlogdata.MigrationType. */
  public enum MigrationType {
    TABLES, SHARDS
  }

  /** binlogdata.ShardGtid: where a target shard stands. */
  public record ShardGtid(String keyspace, String shard, Position gtid) {}

  /** binlogdata.KeyspaceShard. */
  public record KeyspaceShard(String keyspace, String shard) {}

  /**
   * The migration id as Vitess's {@code HashStreams} computes it: 64-bit FNV-1 (not FNV-1a) over
   * the target keyspace name followed by the strings {@code <target shard>:<stream id>}, sorted,
   * with no separators, and the top bit cleared so it fits a signed bigint.
   *
   * @param streamIdsByTargetShard the ids of the workflow's streams on each target shard
   */
  public static long migrationId(String targetKeyspace, Map<String, ? extends Collection<Integer>> streamIdsByTargetShard) {
    Names.keyspace(targetKeyspace);
    List<String> expanded = new ArrayList<>();
    streamIdsByTargetShard.forEach((shard, ids) -> ids.forEach(id -> expanded.add(Names.shard(shard) + ":" + id)));
    // Byte order, as Go's sort.Strings; the same as String order for the ASCII names allowed here.
    Collections.sort(expanded);
    long hash = fnv1(FNV64_OFFSET_BASIS, targetKeyspace);
    for (String s : expanded) {
      hash = fnv1(hash, s);
    }
    return hash & Long.MAX_VALUE;
  }

  private static long fnv1(long hash, String s) {
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      hash *= FNV64_PRIME; // FNV-1 multiplies first, then xors (FNV-1a does the reverse)
      hash ^= b & 0xff;
    }
    return hash;
  }
}
