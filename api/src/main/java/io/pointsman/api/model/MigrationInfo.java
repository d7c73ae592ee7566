package io.pointsman.api.model;

import java.util.List;
import java.util.Objects;

/**
 * What Vitess calls the traffic switcher: everything about one VReplication workflow that the
 * steps need, read from its streams and the topology by {@code buildTrafficSwitcher}. Travels in
 * workflow history, so it holds names and ids only, never connections or credentials.
 *
 * @param workflow the VReplication workflow whose streams run on the target primaries
 * @param migrationId the journal id, Vitess's HashStreams over the target keyspace and streams
 * @param tables the moved tables (TABLES) or the tables the streams replicate (SHARDS)
 * @param frozen whether the target streams are FROZEN, i.e. writes were already switched
 */
public record MigrationInfo(
    String workflow,
    String sourceKeyspace,
    String targetKeyspace,
    MigrationType migrationType,
    List<String> tables,
    List<String> sourceShards,
    List<String> targetShards,
    List<StreamRef> streams,
    long migrationId,
    boolean frozen) {

  public MigrationInfo {
    Objects.requireNonNull(workflow, "workflow");
    tables = List.copyOf(tables);
    sourceShards = List.copyOf(sourceShards);
    targetShards = List.copyOf(targetShards);
    streams = List.copyOf(streams);
  }

  /** Vitess's ReverseWorkflowName: append {@code _reverse}, or strip it if already there. */
  public static String reverseName(String workflow) {
    return workflow.endsWith("_reverse")
        ? workflow.substring(0, workflow.length() - "_reverse".length())
        : workflow + "_reverse";
  }

  public String reverseWorkflow() {
    return reverseName(workflow);
  }

  /** Every keyspace this migration touches, sorted: the keyspace locks to take. */
  public List<String> keyspaces() {
    return sourceKeyspace.equals(targetKeyspace)
        ? List.of(sourceKeyspace)
        : List.of(sourceKeyspace, targetKeyspace).stream().sorted().toList();
  }

  public String qualifiedName() {
    return targetKeyspace + "." + workflow;
  }
}
