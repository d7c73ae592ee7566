package io.pointsman.engine.sequences;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.SequenceMetadata;
import io.pointsman.api.model.SequencePlan;
import io.pointsman.api.model.SequenceValue;
import io.pointsman.engine.concurrent.FanOut;
import io.pointsman.engine.primary.SequencesPort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.topo.TopologyStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Carries out a {@link SequencePlan} on the primaries (docs/sequences.md): the highest id of every
 * using table over all target shards, the sequence tables moved past it on the primary of their
 * unsharded keyspace, and the source primaries' cached ids dropped. Every change only moves a
 * sequence up or drops a cache, so none has an undo and a rerun is harmless.
 */
public final class TargetSequences {
  private final TopologyStore topo;
  private final BiFunction<String, String, ShardRef> shards;
  private final Function<ShardRef, SequencesPort> ports;

  /**
   * @param shards the shard {@code (keyspace, shard)}, checked to have the primary the switch planned
   * @param ports what serves a shard's primary
   */
  public TargetSequences(TopologyStore topo, BiFunction<String, String, ShardRef> shards,
      Function<ShardRef, SequencesPort> ports) {
    this.topo = Objects.requireNonNull(topo, "topo");
    this.shards = Objects.requireNonNull(shards, "shards");
    this.ports = Objects.requireNonNull(ports, "ports");
  }

  /** Drops the ids the source primaries cached from the moved sequence tables. */
  public void resetSources(MigrationInfo w) {
    FanOut.forEach(w.sourceShards(), shard -> {
      ShardRef source = shards.apply(w.sourceKeyspace(), shard);
      ports.apply(source).resetSequences(source, w.tables());
    });
  }

  /**
   * Moves each planned sequence past the highest id its tables hold on the target; returns that id
   * by {@code keyspace.table} of the sequence table.
   */
  public Map<String, Long> initialize(MigrationInfo w, SequencePlan plan) {
    Map<String, Long> out = new TreeMap<>();
    byKeyspace(plan).forEach((keyspace, sequences) -> {
      Map<String, Long> highest = highest(w, sequences);
      ShardRef at = onlyShard(keyspace);
      ports.apply(at).updateSequenceTables(at, highest);
      highest.forEach((table, max) -> out.put(keyspace + "." + table, max));
    });
    return out;
  }

  /** Each planned sequence table's next id now, and once initialized, for a dry run. */
  public List<SequenceValue> values(MigrationInfo w, SequencePlan plan) {
    List<SequenceValue> out = new ArrayList<>();
    byKeyspace(plan).forEach((keyspace, sequences) -> {
      Map<String, Long> highest = highest(w, sequences);
      ShardRef at = onlyShard(keyspace);
      highest.forEach((table, max) -> out.add(new SequenceValue(keyspace, table,
          ports.apply(at).nextValue(at, table).orElse(0), max + 1)));
    });
    out.sort(Comparator.comparing(SequenceValue::backingTable).thenComparing(SequenceValue::backingKeyspace));
    return out;
  }

  /** The highest id by sequence table over every target shard. */
  private Map<String, Long> highest(MigrationInfo w, List<SequenceMetadata> sequences) {
    List<Map<String, Long>> perShard = FanOut.map(w.targetShards(), shard -> {
      ShardRef target = shards.apply(w.targetKeyspace(), shard);
      return ports.apply(target).maxValues(target, sequences);
    });
    Map<String, Long> out = new TreeMap<>();
    perShard.forEach(m -> m.forEach((table, max) -> out.merge(table, max, Math::max)));
    return out;
  }

  private ShardRef onlyShard(String keyspace) {
    List<String> names = topo.listShards(keyspace);
    if (names.size() != 1) {
      throw PointsmanException.failedPrecondition("keyspace " + keyspace + " holds sequence tables but has "
          + names.size() + " shards " + names + "; a sequence table lives in an unsharded keyspace");
    }
    return shards.apply(keyspace, names.get(0));
  }

  private static Map<String, List<SequenceMetadata>> byKeyspace(SequencePlan plan) {
    return plan.initialize().stream().collect(Collectors.groupingBy(SequenceMetadata::backingKeyspace,
        LinkedHashMap::new, Collectors.toList()));
  }
}
