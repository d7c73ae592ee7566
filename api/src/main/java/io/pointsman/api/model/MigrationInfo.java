package io.pointsman.api.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What Vitess calls the traffic switcher: everything about one VReplication workflow that the
 * steps need, read from its streams and the topology by {@code buildTrafficSwitcher}. Travels in
 * workflow history, so it holds names and ids only, never connections or credentials.
 *
 * @param workflow the VReplication workflow whose streams run on the target primaries
 * @param migrationId the journal id, Vitess's HashStreams over the target keyspace and streams
 * @param tables the moved tables (TABLES) or the tables the streams replicate (SHARDS)
 * @param frozen whether the target streams are FROZEN, i.e. writes were already switched
 * @param plannedPrimaries the primary of each source and target shard ({@code keyspace/shard}) the
 *     write switch planned with, read under the shard locks; every MySQL or tablet change the switch
 *     makes goes only to these. Empty until {@code planPrimaries}, and in histories from before it.
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
    boolean frozen,
    Map<String, PrimaryTerm> plannedPrimaries) {

  public MigrationInfo {
    Objects.requireNonNull(workflow, "workflow");
    tables = List.copyOf(tables);
    sourceShards = List.copyOf(sourceShards);
    targetShards = List.copyOf(targetShards);
    streams = List.copyOf(streams);
    plannedPrimaries = plannedPrimaries == null ? Map.of() : Map.copyOf(new TreeMap<>(plannedPrimaries));
  }

  /** A traffic switcher before its primaries are planned. */
  public MigrationInfo(String workflow, String sourceKeyspace, String targetKeyspace, MigrationType migrationType,
      List<String> tables, List<String> sourceShards, List<String> targetShards, List<StreamRef> streams,
      long migrationId, boolean frozen) {
    this(workflow, sourceKeyspace, targetKeyspace, migrationType, tables, sourceShards, targetShards, streams,
        migrationId, frozen, Map.of());
  }

  /** The same switcher, its every change bound to these primaries. */
  public MigrationInfo withPlannedPrimaries(Map<String, PrimaryTerm> primaries) {
    return new MigrationInfo(workflow, sourceKeyspace, targetKeyspace, migrationType, tables, sourceShards,
        targetShards, streams, migrationId, frozen, primaries);
  }

  /** The primary planned for {@code keyspace/shard}, if the switch planned one. */
  public Optional<PrimaryTerm> plannedPrimary(String keyspace, String shard) {
    return Optional.ofNullable(plannedPrimaries.get(keyspace + "/" + shard));
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
