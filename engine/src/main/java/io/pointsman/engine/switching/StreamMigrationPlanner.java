package io.pointsman.engine.switching;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigratedStream;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamMigration;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.SidecarText;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.switching.OtherWorkflowStreams.Located;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Decides which streams of other workflows a Reshard's write switch migrates, as Vitess's stream
 * migrator decides it, and refuses what cannot be migrated before anything changes. Pure: it judges
 * what {@link OtherStreamsReader} read on the source primaries.
 *
 * <p>Every stream on a source shard that is not the Reshard's own (nor its reverse) is migrated,
 * unless all its tables are reference tables of the keyspace (those stay, as in Vitess). A FROZEN
 * stream (a MoveTables into the keyspace, switched and not completed) is migrated FROZEN: Vitess
 * migrates it too but starts its copies, which then run without the mark. Refused, as Vitess refuses
 * them: a stream named as the Reshard; one not Running and not FROZEN (a stopped stream could not be
 * told from one the migration stopped, and an undo would start it); one still copying; streams that
 * differ between the source shards; a rule that names no table of the keyspace's VSchema, mixes
 * reference and sharded tables, or has no key range to point at the new shards. Refused although
 * Vitess migrates them: FROZEN copies of one stream at different positions (they cannot be run on to
 * one without unfreezing them) and a stream reading the resharded keyspace itself (Vitess's
 * intra-keyspace materialization, not built here).
 */
final class StreamMigrationPlanner {
  private StreamMigrationPlanner() {}

  static StreamMigration plan(MigrationInfo w, List<Located> onSources, VSchema vschema) {
    if (w.migrationType() != MigrationType.SHARDS) {
      return StreamMigration.NONE;
    }
    OtherWorkflowStreams.refuseSameName(w, onSources);
    List<Located> migrated = new ArrayList<>();
    for (Located l : onSources) {
      if (!w.sourceShards().contains(l.shard()) || OtherWorkflowStreams.isOwn(w, l.stream())
          || OtherWorkflowStreams.referenceOnly(l.stream(), vschema)) {
        continue;
      }
      Located withKeyRanges = withKeyRanges(l, vschema);
      problem(w, withKeyRanges.stream(), vschema).ifPresent(p -> {
        throw refusal(w, "workflow " + l.stream().workflow() + " on shard " + l.shard() + " (stream "
            + l.stream().id() + ") " + p);
      });
      migrated.add(withKeyRanges);
    }
    refuseMismatch(w, migrated);
    refuseFrozenApart(w, migrated);
    migrated.sort(Comparator.comparing((Located l) -> l.shard(), MigrationReader.SHARD_ORDER)
        .thenComparingInt(l -> l.stream().id()));
    List<MigratedStream> streams = migrated.stream().map(StreamMigrationPlanner::migrated).toList();
    List<String> workflows = streams.stream().map(MigratedStream::workflow).distinct().sorted().toList();
    return new StreamMigration(workflows, streams);
  }

  /**
   * The stream with an in_keyrange on its shard's key range added to each select rule that has
   * none ({@link StreamFilters#withKeyRange}); a rule it cannot add one to is left for
   * {@link #problem} to refuse.
   */
  private static Located withKeyRanges(Located l, VSchema vschema) {
    Stream s = l.stream();
    String keyRange = KeyRange.ofShard(l.shard()).shardName();
    List<BinlogSource.Rule> rules = s.source().filter().rules().stream()
        .map(r -> StreamFilters.withKeyRange(r, vschema, keyRange).orElse(r)).toList();
    return new Located(l.keyspace(), l.shard(), s.withSource(s.source().withRules(rules)));
  }

  private static Optional<String> problem(MigrationInfo w, Stream s, VSchema vschema) {
    if (s.workflow().isEmpty()) {
      return Optional.of("has no workflow name");
    }
    if (s.state() != StreamState.RUNNING && !s.isFrozen()) {
      return Optional.of("is " + s.state().column() + ", not Running: start it or delete it first");
    }
    if (s.copyPending()) {
      return Optional.of("is still copying");
    }
    BinlogSource src = s.source();
    if (src.keyspace().equals(w.sourceKeyspace())) {
      return Optional.of("reads from keyspace " + src.keyspace() + " itself, an intra-keyspace materialization,"
          + " which pointsman does not migrate");
    }
    if (!src.externalMysql().isEmpty() || !src.externalCluster().isEmpty()) {
      return Optional.of("reads from an external source");
    }
    if (src.keyRange() != null || src.filter().rules().isEmpty()) {
      return Optional.of("selects rows by a key range of its source, not by filter rules");
    }
    boolean reference = false;
    boolean sharded = false;
    for (BinlogSource.Rule r : src.filter().rules()) {
      VSchemaTable t = vschema == null ? null : vschema.tables().get(r.match());
      if (t == null && !r.isWildcard()) {
        return Optional.of("has a rule for table " + r.match() + ", which is not in the VSchema of "
            + w.sourceKeyspace());
      }
      if (t != null && "reference".equals(t.type())) {
        reference = true;
        continue;
      }
      sharded = true;
      Optional<String> filter = StreamFilters.problem(r);
      if (filter.isPresent()) {
        return filter.map(p -> "cannot be pointed at the new shards: " + p);
      }
    }
    if (reference && sharded) {
      return Optional.of("mixes reference and sharded tables");
    }
    return Optional.empty();
  }

  /** Every source shard must run the same streams (workflow and source shard), as Vitess requires. */
  private static void refuseMismatch(MigrationInfo w, List<Located> migrated) {
    if (migrated.isEmpty()) {
      return;
    }
    Map<String, List<String>> byShard = new TreeMap<>(MigrationReader.SHARD_ORDER);
    w.sourceShards().forEach(shard -> byShard.put(shard, new ArrayList<>()));
    for (Located l : migrated) {
      BinlogSource src = l.stream().source();
      byShard.get(l.shard()).add(l.stream().workflow() + " from " + src.keyspace() + "/" + src.shard());
    }
    byShard.values().forEach(list -> list.sort(null));
    List<String> first = byShard.values().iterator().next();
    String firstShard = byShard.keySet().iterator().next();
    for (Map.Entry<String, List<String>> e : byShard.entrySet()) {
      if (!e.getValue().equals(first)) {
        throw refusal(w, "the source shards run different streams: " + firstShard + " runs " + first + ", "
            + e.getKey() + " runs " + e.getValue() + "; Vitess migrates only streams that run on every source shard");
      }
    }
  }

  /** FROZEN copies of one stream must have stopped at one position: they are not run on to one. */
  private static void refuseFrozenApart(MigrationInfo w, List<Located> migrated) {
    Map<String, String> positions = new TreeMap<>();
    for (Located l : migrated) {
      Stream s = l.stream();
      if (!s.isFrozen()) {
        continue;
      }
      String key = s.workflow() + " from " + s.source().keyspace() + "/" + s.source().shard();
      String pos = positions.putIfAbsent(key, s.pos().encode());
      if (pos != null && !pos.equals(s.pos().encode())) {
        throw refusal(w, "the FROZEN streams of workflow " + s.workflow() + " stopped at different positions ("
            + pos + ", " + s.pos().encode() + "); complete or cancel that workflow first");
      }
    }
  }

  private static MigratedStream migrated(Located l) {
    Stream s = l.stream();
    return new MigratedStream(l.shard(), s.id(), s.workflow(), SidecarText.encodeSource(s.source()), s.pos().encode(),
        s.dbName(), s.cell(), s.tabletTypes(), s.workflowType().code(), s.workflowSubType().code(), s.options(),
        s.isFrozen());
  }

  private static PointsmanException refusal(MigrationInfo w, String why) {
    return PointsmanException.failedPrecondition("cannot switch writes of Reshard " + w.qualifiedName()
        + ": the streams of other workflows on its source shards cannot be migrated to the target shards: "
        + why + OtherWorkflowStreams.NOTHING_CHANGED);
  }
}
