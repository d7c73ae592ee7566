package io.pointsman.api.model;

import java.util.Collection;

/** Vitess's migration type: MoveTables moves TABLES between keyspaces, Reshard moves SHARDS. */
public enum MigrationType {
  TABLES,
  SHARDS;

  /**
   * What a workflow that reads {@code sourceShards} of {@code sourceKeyspace} into
   * {@code targetShards} of {@code targetKeyspace} migrates: SHARDS when it stays in one keyspace
   * and no source shard is also a target, TABLES otherwise.
   */
  public static MigrationType of(String sourceKeyspace, String targetKeyspace, Collection<String> sourceShards,
      Collection<String> targetShards) {
    return sourceKeyspace.equals(targetKeyspace) && sourceShards.stream().noneMatch(targetShards::contains)
        ? SHARDS
        : TABLES;
  }
}
