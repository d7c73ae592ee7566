package io.pointsman.api.model;

import java.util.List;

/**
 * What a MoveTables write switch does to sequences, decided under the keyspace locks before the
 * write window, as Vitess decides it:
 *
 * @param resetSourceSequences the moved tables include sequence tables (the target's VSchema says
 *     so): the source primaries forget the ids they cached from them, or after a ReverseTraffic they
 *     would hand out ids the target has handed out meanwhile
 * @param initialize the sequences to move past the highest id on the target before writes reach it
 *     ({@code initializeTargetSequences}), one per sequence table
 */
public record SequencePlan(boolean resetSourceSequences, List<SequenceMetadata> initialize) {
  /** Nothing to do: no sequence table moves and none is initialized. */
  public static final SequencePlan NONE = new SequencePlan(false, List.of());

  public SequencePlan {
    initialize = List.copyOf(initialize);
  }
}
