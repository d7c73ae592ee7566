package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import java.util.List;

/**
 * A {@code Reshard create} request.
 *
 * @param workflow the workflow name
 * @param keyspace the keyspace being resharded
 * @param sourceShards the serving shards to split or merge
 * @param targetShards the new shards, which must exist, have a primary and not serve yet
 * @param autoStart whether the streams start at once (state Init) or wait (Stopped)
 */
public record ReshardSpec(
    String workflow, String keyspace, List<String> sourceShards, List<String> targetShards, boolean autoStart) {
  public ReshardSpec {
    Names.workflow(workflow);
    Names.keyspace(keyspace);
    sourceShards = List.copyOf(sourceShards);
    targetShards = List.copyOf(targetShards);
    if (sourceShards.isEmpty() || targetShards.isEmpty()) {
      throw PointsmanException.invalidArgument("Reshard needs source and target shards");
    }
    sourceShards.forEach(Names::shard);
    targetShards.forEach(Names::shard);
    if (sourceShards.stream().anyMatch(targetShards::contains)) {
      throw PointsmanException.invalidArgument("a shard is both source and target: " + sourceShards + " -> "
          + targetShards);
    }
  }

  /** The sandbox's workflow: {@code cust2cust} splits customer -80,80- into four shards, started at once. */
  public static ReshardSpec sandbox() {
    return new ReshardSpec(SandboxLayout.RESHARD_WORKFLOW, SandboxLayout.CUSTOMER,
        SandboxLayout.RESHARD_SOURCE_SHARDS, SandboxLayout.RESHARD_TARGET_SHARDS, true);
  }

  public ReshardSpec withAutoStart(boolean start) {
    return new ReshardSpec(workflow, keyspace, sourceShards, targetShards, start);
  }
}
