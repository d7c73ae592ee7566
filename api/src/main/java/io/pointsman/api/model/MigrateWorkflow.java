package io.pointsman.api.model;

import java.util.List;

/**
 * A Migrate workflow: it imports tables from outside this Vitess cluster (a mounted external cluster or
 * an external MySQL), so it has no traffic to switch. Complete and Cancel finalize it on the target
 * keyspace alone, as Vitess does; the source, outside the cluster, is never touched.
 *
 * @param targetKeyspace the keyspace it imports into
 * @param workflow its name
 * @param sourceKeyspace the keyspace it reads, as its streams name it in the external cluster
 * @param external the mounted cluster or external MySQL it reads from
 * @param tables the tables it imports, sorted
 * @param targetShards the target shards whose primaries run its streams, in shard order
 */
public record MigrateWorkflow(String targetKeyspace, String workflow, String sourceKeyspace, String external,
    List<String> tables, List<String> targetShards) {
  public MigrateWorkflow {
    tables = List.copyOf(tables);
    targetShards = List.copyOf(targetShards);
  }

  public String qualifiedName() {
    return targetKeyspace + "." + workflow;
  }
}
