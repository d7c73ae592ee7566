package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Refuses a Reshard step that would strand other workflows' streams. Vitess's stream migrator,
 * when a Reshard switches writes, stops every stream on the source shards' primaries that is not
 * the Reshard's own reverse workflow (except streams of reference tables only) and recreates it on
 * the target shards; pointsman does not, so it refuses instead. And deleting the source shards
 * (Complete) would take away both the streams running on them and the source of streams
 * elsewhere that read from them. Pure: it judges streams that {@link OtherStreamsReader} read.
 */
public final class OtherWorkflowStreams {
  static final String NOTHING_CHANGED = "; nothing was changed";

  private OtherWorkflowStreams() {}

  /** One stream and the shard whose primary runs it. */
  public record Located(String keyspace, String shard, Stream stream) {}

  /**
   * Throws FAILED_PRECONDITION when switching the writes of Reshard {@code w} would leave other
   * workflows' streams behind on its source shards.
   *
   * @param onSources the streams of every workflow on each source shard's primary
   * @param sourceVSchema the resharded keyspace's VSchema, to tell reference tables
   */
  public static void checkWriteSwitch(MigrationInfo w, List<Located> onSources, VSchema sourceVSchema) {
    if (w.migrationType() != MigrationType.SHARDS) {
      return; // Vitess migrates streams for shard migrations only
    }
    refuseSameName(w, onSources);
    Map<String, Set<String>> found = new TreeMap<>();
    for (Located l : onSources) {
      if (isOwn(w, l.stream()) || referenceOnly(l.stream(), sourceVSchema)) {
        continue;
      }
      found.computeIfAbsent(l.stream().workflow(), k -> new TreeSet<>(MigrationReader.SHARD_ORDER))
          .add(l.shard());
    }
    if (!found.isEmpty()) {
      throw PointsmanException.failedPrecondition("cannot switch writes of Reshard " + w.qualifiedName()
          + ": the primaries of its source shards " + w.sourceShards() + " run streams of other workflows ("
          + describe(found, "on") + "), which Vitess's SwitchTraffic stops and recreates on the target shards;"
          + " pointsman cannot migrate them yet: switch with vtctldclient, or stop and delete those"
          + " workflows first" + NOTHING_CHANGED);
    }
  }

  /** Vitess refuses these too: a source shard's stream cannot be told from the Reshard's own. */
  static void refuseSameName(MigrationInfo w, List<Located> onSources) {
    Set<String> sameName = new TreeSet<>(MigrationReader.SHARD_ORDER);
    onSources.stream().filter(l -> l.stream().workflow().equals(w.workflow()) && w.sourceShards().contains(l.shard()))
        .forEach(l -> sameName.add(l.shard()));
    if (!sameName.isEmpty()) {
      throw PointsmanException.failedPrecondition("cannot switch writes of Reshard " + w.qualifiedName()
          + ": its source shards " + sameName + " run streams named " + w.workflow() + " too, the Reshard's own"
          + " name; delete or rename them first" + NOTHING_CHANGED);
    }
  }

  /**
   * Throws FAILED_PRECONDITION when deleting Reshard {@code info}'s source shards would remove other
   * workflows' streams running on them, or the source of streams that read from them.
   *
   * @param everywhere the streams of every workflow on every primary of every keyspace
   */
  public static void checkSourceShardsDeletion(MigrationInfo info, List<Located> everywhere) {
    if (info.migrationType() != MigrationType.SHARDS) {
      return;
    }
    Set<String> sources = Set.copyOf(info.sourceShards());
    Map<String, Set<String>> runOn = new TreeMap<>();
    Map<String, Set<String>> readFrom = new TreeMap<>();
    for (Located l : everywhere) {
      Stream s = l.stream();
      if (isOwn(info, s)) {
        continue;
      }
      if (l.keyspace().equals(info.sourceKeyspace()) && sources.contains(l.shard())) {
        runOn.computeIfAbsent(s.workflow(), k -> new TreeSet<>(MigrationReader.SHARD_ORDER)).add(l.shard());
      }
      BinlogSource src = s.source();
      if (src.keyspace().equals(info.sourceKeyspace()) && sources.contains(src.shard())) {
        readFrom.computeIfAbsent(l.keyspace() + "." + s.workflow(), k -> new TreeSet<>(MigrationReader.SHARD_ORDER))
            .add(src.shard());
      }
    }
    if (runOn.isEmpty() && readFrom.isEmpty()) {
      return;
    }
    List<String> why = new ArrayList<>();
    if (!runOn.isEmpty()) {
      why.add("streams of other workflows run on them (" + describe(runOn, "on") + ")");
    }
    if (!readFrom.isEmpty()) {
      why.add("streams of other workflows read from them (" + describe(readFrom, "from") + ")");
    }
    throw PointsmanException.failedPrecondition("cannot complete Reshard " + info.qualifiedName()
        + ": deleting its source shards " + info.sourceKeyspace() + " " + info.sourceShards() + " would strand "
        + "them: " + String.join(" and ", why) + "; move or delete those workflows first (vtctldclient)"
        + NOTHING_CHANGED);
  }

  /** The Reshard's own streams: its forward streams, and the reverse ones a write switch creates. */
  static boolean isOwn(MigrationInfo w, Stream s) {
    return s.workflow().equals(w.workflow()) || s.workflow().equals(w.reverseWorkflow());
  }

  /** Vitess skips a stream whose every table is a reference table of the resharded keyspace. */
  static boolean referenceOnly(Stream s, VSchema vschema) {
    List<BinlogSource.Rule> rules = s.source().filter().rules().stream().filter(r -> !r.isExclude()).toList();
    if (rules.isEmpty() || vschema == null) {
      return false;
    }
    for (BinlogSource.Rule r : rules) {
      VSchemaTable t = vschema.tables().get(r.match());
      if (t == null || !"reference".equals(t.type())) {
        return false;
      }
    }
    return true;
  }

  static String describe(Map<String, Set<String>> byWorkflow, String preposition) {
    List<String> parts = new ArrayList<>();
    byWorkflow.forEach((wf, shards) -> parts.add("workflow " + wf + " " + preposition + " shards " + shards));
    return String.join(", ", parts);
  }
}
