package io.pointsman.engine.switching;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Refuses, before anything changes, a workflow that pointsman would switch or clean up wrongly
 * because it is not the plain MoveTables or Reshard its steps are written for: a Migrate (its source
 * lives in another cluster), a multi-tenant MoveTables (switched by keyspace routing rules), a
 * partial MoveTables (switched by shard routing rules), a MoveTables of wildcard-matched tables, or
 * a Reshard whose source and target shards do not cover the same key space. Pure: it judges what
 * {@link MigrationReader} read, and reads shard key ranges through the function it is given.
 */
public final class UnsupportedWorkflows {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NOTHING_CHANGED = "; nothing was changed";

  private UnsupportedWorkflows() {}

  /**
   * Throws when pointsman must not act on the workflow. Migrate is INVALID_ARGUMENT (no action of
   * pointsman applies to it, as Vitess refuses SwitchTraffic on it); the others are
   * FAILED_PRECONDITION. Neither is retried.
   *
   * @param streams the workflow's streams on the target primaries
   * @param shards a keyspace's shards by name, every shard of it
   */
  public static void check(MigrationInfo info, List<Stream> streams, Function<String, Map<String, Shard>> shards) {
    String name = checkStreams(info, streams);
    if (info.migrationType() == MigrationType.TABLES) {
      checkTables(name, info, streams, shards);
    } else {
      checkShards(name, info, shards);
    }
  }

  /**
   * {@link #check} of a MoveTables acted on without its source keyspace: what the target's streams
   * and shards show (a Migrate, a multi-tenant or partial MoveTables, wildcard tables; before writes
   * are switched, target shards the streams miss), never reading the source keyspace's shards.
   */
  public static void checkIgnoringSource(MigrationInfo info, List<Stream> streams,
      Function<String, Map<String, Shard>> shards) {
    String name = checkStreams(info, streams);
    List<String> allTarget = serving(shards.apply(info.targetKeyspace()));
    if (!info.frozen() && !allTarget.equals(info.targetShards())) {
      throw PointsmanException.failedPrecondition(name + " runs on target shards " + info.targetShards() + " of "
          + info.targetKeyspace() + "'s serving " + allTarget + ": pointsman acts on a MoveTables only over every"
          + " serving shard of its target keyspace; for a partial MoveTables use vtctldclient" + NOTHING_CHANGED);
    }
    checkWildcards(name, streams);
  }

  /** The refusals the streams alone decide; answers the workflow's name for the messages. */
  private static String checkStreams(MigrationInfo info, List<Stream> streams) {
    String name = "workflow " + info.qualifiedName();
    Optional<String> external = streams.stream().map(Stream::source)
        .map(s -> !s.externalCluster().isEmpty() ? "external cluster " + s.externalCluster()
            : !s.externalMysql().isEmpty() ? "external MySQL " + s.externalMysql() : null)
        .filter(s -> s != null).findFirst();
    if (external.isPresent() || streams.stream().anyMatch(s -> s.workflowType() == WorkflowType.MIGRATE)) {
      throw PointsmanException.invalidArgument(name + " is a Migrate workflow"
          + external.map(e -> " (from " + e + ")").orElse("")
          + ": Vitess's Migrate has no SwitchTraffic or ReverseTraffic; finish it with Complete (or end it with"
          + " Cancel)" + NOTHING_CHANGED);
    }
    Optional<String> tenant = tenantId(name, streams);
    if (tenant.isPresent()) {
      throw PointsmanException.failedPrecondition(name + " is a multi-tenant MoveTables (tenant "
          + tenant.get() + "), which Vitess switches with keyspace routing rules; pointsman does not switch"
          + " multi-tenant MoveTables yet: use vtctldclient" + NOTHING_CHANGED);
    }
    if (streams.stream().anyMatch(s -> s.workflowSubType() == WorkflowSubType.PARTIAL)) {
      throw PointsmanException.failedPrecondition(name + " is a partial MoveTables (shards "
          + info.targetShards() + "); pointsman does not switch partial MoveTables yet: use vtctldclient"
          + NOTHING_CHANGED);
    }
    return name;
  }

  /** Vitess requires a MoveTables to run on every shard of both keyspaces and names its tables. */
  private static void checkTables(String name, MigrationInfo info, List<Stream> streams,
      Function<String, Map<String, Shard>> shards) {
    Map<String, Shard> sourceShards = shards.apply(info.sourceKeyspace());
    Map<String, Shard> targetShards = shards.apply(info.targetKeyspace());
    Map<String, KeyRange> sourceRanges = ranges(sourceShards);
    Map<String, KeyRange> targetRanges = ranges(targetShards);
    String sourceCover = coverage(info.sourceShards(), sourceRanges);
    // Vitess's own test for a partial MoveTables created before the sub-type existed: shard for
    // shard over the same part of the key space, not all of it
    if (info.sourceShards().size() == info.targetShards().size() && !sourceCover.equals("-")
        && !sourceCover.startsWith("!") && sourceCover.equals(coverage(info.targetShards(), targetRanges))) {
      throw PointsmanException.failedPrecondition(name + " is a partial MoveTables (shards "
          + info.targetShards() + "); pointsman does not switch partial MoveTables yet: use vtctldclient"
          + NOTHING_CHANGED);
    }
    List<String> allSource = serving(sourceShards);
    List<String> allTarget = serving(targetShards);
    // Vitess's switch requires every shard of both keyspaces (CompareShards); pointsman asks for
    // every serving one, so shards a Reshard of either keyspace is filling do not count. Once writes
    // are switched (frozen) only Complete is left, which Vitess allows after shards were added.
    if (!info.frozen() && (!allSource.equals(info.sourceShards()) || !allTarget.equals(info.targetShards()))) {
      throw PointsmanException.failedPrecondition(name + " reads source shards " + info.sourceShards() + " of "
          + info.sourceKeyspace() + "'s serving " + allSource + " and runs on target shards " + info.targetShards()
          + " of " + info.targetKeyspace() + "'s serving " + allTarget + ": pointsman switches a MoveTables only"
          + " over every serving shard of both keyspaces (a target shard without a primary has no streams to read);"
          + " for a partial MoveTables use vtctldclient" + NOTHING_CHANGED);
    }
    checkWildcards(name, streams);
  }

  /** Vitess does not switch a MoveTables whose rules match tables by wildcard. */
  private static void checkWildcards(String name, List<Stream> streams) {
    TreeSet<String> wildcards = new TreeSet<>();
    for (Stream s : streams) {
      s.source().filter().rules().stream().filter(r -> r.isWildcard() && !r.isExclude())
          .map(BinlogSource.Rule::match).forEach(wildcards::add);
    }
    if (!wildcards.isEmpty()) {
      throw PointsmanException.failedPrecondition(name + " moves the tables its rules " + wildcards
          + " match: Vitess does not switch a MoveTables with wildcard table names, nor does pointsman,"
          + " since the routing rules and denied tables need each table by name; recreate the workflow"
          + " listing its tables" + NOTHING_CHANGED);
    }
  }

  /** A Reshard must hand over exactly the key space it takes: no gap, no overlap, same bounds. */
  private static void checkShards(String name, MigrationInfo info, Function<String, Map<String, Shard>> shards) {
    Map<String, KeyRange> all = ranges(shards.apply(info.sourceKeyspace()));
    String source = coverage(info.sourceShards(), all);
    String target = coverage(info.targetShards(), all);
    if (!source.equals(target) || source.startsWith("!")) {
      throw PointsmanException.failedPrecondition(name + " reshards source shards " + info.sourceShards()
          + " (" + describe(source) + ") into target shards " + info.targetShards() + " (" + describe(target)
          + "): they must cover the same key range without gap or overlap" + NOTHING_CHANGED);
    }
  }

  private static String describe(String coverage) {
    return coverage.startsWith("!") ? coverage.substring(1) : "covering " + coverage;
  }

  /**
   * The key range the shards cover together, as a shard name ({@code -} for all), or a text
   * starting with {@code !} naming the first gap or overlap.
   */
  static String coverage(List<String> shards, Map<String, KeyRange> ranges) {
    List<KeyRange> sorted = new ArrayList<>();
    for (String s : shards) {
      KeyRange r = ranges.get(s);
      sorted.add(r == null ? KeyRange.ofShard(s) : r);
    }
    if (sorted.isEmpty()) {
      return "!no shards";
    }
    sorted.sort(Comparator.comparing(KeyRange::start, Names::compareHexBounds));
    for (int i = 1; i < sorted.size(); i++) {
      KeyRange prev = sorted.get(i - 1);
      KeyRange next = sorted.get(i);
      int cmp = prev.end().isEmpty() ? 1 : Names.compareHexBounds(prev.end(), next.start());
      if (cmp < 0) {
        return "!gap between " + prev + " and " + next;
      }
      if (cmp > 0) {
        return "!overlap of " + prev + " and " + next;
      }
    }
    return new KeyRange(sorted.get(0).start(), sorted.get(sorted.size() - 1).end()).shardName();
  }

  /** Vitess's WorkflowOptions.tenant_id from the stream's options JSON; a workflow has one. */
  private static Optional<String> tenantId(String name, List<Stream> streams) {
    for (Stream s : streams) {
      String options = s.options();
      if (options == null || options.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(options);
      } catch (JsonProcessingException e) {
        throw PointsmanException.failedPrecondition(name + ": stream " + s.id() + " has options that are not JSON ("
            + e.getOriginalMessage() + "); pointsman cannot tell what kind of workflow it is" + NOTHING_CHANGED);
      }
      for (String field : List.of("tenant_id", "tenantId")) {
        JsonNode v = node.get(field);
        if (v != null && !v.isNull() && !v.asText().isBlank()) {
          return Optional.of(v.asText());
        }
      }
    }
    return Optional.empty();
  }

  private static Map<String, KeyRange> ranges(Map<String, Shard> shards) {
    Map<String, KeyRange> out = new TreeMap<>();
    shards.forEach((name, shard) -> out.put(name, shard.keyRange()));
    return out;
  }

  /** The shards whose primary serves, in key-range order; all of them if none does. */
  private static List<String> serving(Map<String, Shard> shards) {
    List<String> serving = sorted(shards.entrySet().stream().filter(e -> e.getValue().isPrimaryServing())
        .map(Map.Entry::getKey).toList());
    return serving.isEmpty() ? sorted(shards.keySet()) : serving;
  }

  private static List<String> sorted(Collection<String> shards) {
    return shards.stream().sorted(MigrationReader.SHARD_ORDER).toList();
  }
}
