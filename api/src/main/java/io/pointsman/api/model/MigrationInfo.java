package io.pointsman.api.model;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param sourceIgnored read without the source keyspace, for a Complete or Cancel asked to ignore it
 *     (vtctldclient's {@code --ignore-source-keyspace}): the source's shards are named by the target's
 *     streams only, and no step reads, locks or changes anything of the source keyspace. Written to
 *     history only when true, so switchers recorded before it decode, and encode, as they did.
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
    Map<String, PrimaryTerm> plannedPrimaries,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean sourceIgnored) {

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
        migrationId, frozen, Map.of(), false);
  }

  /** A traffic switcher as planned, read with its source keyspace. */
  public MigrationInfo(String workflow, String sourceKeyspace, String targetKeyspace, MigrationType migrationType,
      List<String> tables, List<String> sourceShards, List<String> targetShards, List<StreamRef> streams,
      long migrationId, boolean frozen, Map<String, PrimaryTerm> plannedPrimaries) {
    this(workflow, sourceKeyspace, targetKeyspace, migrationType, tables, sourceShards, targetShards, streams,
        migrationId, frozen, plannedPrimaries, false);
  }

  /** The same switcher, to be acted on without its source keyspace (see {@code sourceIgnored}). */
  public MigrationInfo ignoringSource() {
    return new MigrationInfo(workflow, sourceKeyspace, targetKeyspace, migrationType, tables, sourceShards,
        targetShards, streams, migrationId, frozen, plannedPrimaries, true);
  }

  /** The same switcher, its every change bound to these primaries. */
  public MigrationInfo withPlannedPrimaries(Map<String, PrimaryTerm> primaries) {
    return new MigrationInfo(workflow, sourceKeyspace, targetKeyspace, migrationType, tables, sourceShards,
        targetShards, streams, migrationId, frozen, primaries, sourceIgnored);
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

  /**
   * Every keyspace this migration touches, sorted: the keyspace locks to take. Only the target when
   * the source is ignored, as Vitess then locks the target keyspace alone.
   */
  public List<String> keyspaces() {
    return sourceIgnored || sourceKeyspace.equals(targetKeyspace)
        ? List.of(targetKeyspace)
        : List.of(sourceKeyspace, targetKeyspace).stream().sorted().toList();
  }

  public String qualifiedName() {
    return targetKeyspace + "." + workflow;
  }
}
