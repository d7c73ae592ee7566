package io.pointsman.sandbox.cluster;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.SrvKeyspace;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Builds a keyspace's serving graph the way Vitess's RebuildKeyspaceGraph does for a fresh
 * keyspace: one partition per serving tablet type (PRIMARY, REPLICA, RDONLY), each referencing the
 * shards whose primary serves, in key-range order, with no tablet controls.
 */
public final class SrvKeyspaceBuilder {
  /** The tablet types a SrvKeyspace has partitions for. */
  public static final List<TabletType> SERVED_TYPES =
      List.of(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);

  private SrvKeyspaceBuilder() {}

  /** The SrvKeyspace of the given shard records (name to record); shards that do not serve are left out. */
  public static SrvKeyspace fromShards(Map<String, Shard> shards) {
    List<ShardReference> refs = shards.entrySet().stream()
        .filter(e -> e.getValue().isPrimaryServing())
        .sorted(Comparator.comparing(e -> e.getValue().keyRange(), SrvKeyspaceBuilder::compare))
        .map(e -> new ShardReference(e.getKey(), orNull(e.getValue().keyRange())))
        .toList();
    return new SrvKeyspace(SERVED_TYPES.stream().map(t -> new KeyspacePartition(t, refs, List.of())).toList());
  }

  /** A full key range is left out of records, as Vitess leaves key_range unset for unsharded shards. */
  static KeyRange orNull(KeyRange range) {
    return range == null || range.isFull() ? null : range;
  }

  /** Orders ranges by start, then by end with an open end last ({@code -40} before {@code -80}). */
  static int compare(KeyRange a, KeyRange b) {
    int byStart = Names.compareHexBounds(a.start(), b.start());
    if (byStart != 0 || a.end().equals(b.end())) {
      return byStart;
    }
    if (a.end().isEmpty() || b.end().isEmpty()) {
      return a.end().isEmpty() ? 1 : -1;
    }
    return Names.compareHexBounds(a.end(), b.end());
  }
}
