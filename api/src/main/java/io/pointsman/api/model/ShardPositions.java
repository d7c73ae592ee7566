package io.pointsman.api.model;

import java.util.Map;

/** Positions of the source and of the target primaries, each keyed by shard name. */
public record ShardPositions(Map<String, String> source, Map<String, String> target) {
  public ShardPositions {
    source = Map.copyOf(source);
    target = Map.copyOf(target);
  }
}
