package io.pointsman.engine.primary;

import io.pointsman.api.model.SequenceMetadata;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Vitess sequences on a shard's primary: the highest ids its tables hold, the sequence tables behind
 * them, and the ids a vttablet caches from those. A sequence is only ever moved up, so none of
 * these needs a fence: a late or repeated call can skip ids, never hand one out twice.
 */
public interface SequencesPort {

  /**
   * The highest value of each sequence's using column on this shard, by backing table (0 for an
   * empty table); where several moved tables share a sequence table, the highest of them.
   */
  Map<String, Long> maxValues(ShardRef shard, List<SequenceMetadata> sequences);

  /** The id the sequence table hands out next ({@code next_id} of its row 0), empty when it has no row. */
  OptionalLong nextValue(ShardRef shard, String backingTable);

  /**
   * Moves each sequence table of this (unsharded) shard past the given highest id: {@code next_id}
   * becomes at least one above it, never lower than it was; then the primary forgets the ids it
   * cached from them.
   *
   * @param highestByBackingTable the highest id in use, by sequence table
   */
  void updateSequenceTables(ShardRef shard, Map<String, Long> highestByBackingTable);

  /** Has the primary forget the ids it cached from those of these tables that are sequence tables. */
  void resetSequences(ShardRef shard, Collection<String> tables);
}
