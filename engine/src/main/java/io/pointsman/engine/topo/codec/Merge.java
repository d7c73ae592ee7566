package io.pointsman.engine.topo.codec;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Rebuilds a repeated field from the model's entries, each written over the base entry of the same identity. */
final class Merge {
  private Merge() {}

  /**
   * One message per value, in the values' order; a value whose key matches a base entry is written
   * over that entry (the n-th value of a key over the n-th base entry of it), any other over
   * {@code empty}. Base entries no value matches are dropped.
   */
  static <P, V, K> List<P> byKey(List<P> base, Function<P, K> baseKey, List<V> values, Function<V, K> valueKey,
      BiFunction<V, P, P> write, P empty) {
    Map<K, Deque<P>> byKey = new HashMap<>();
    for (P p : base) {
      byKey.computeIfAbsent(baseKey.apply(p), k -> new ArrayDeque<>()).add(p);
    }
    List<P> out = new ArrayList<>(values.size());
    for (V v : values) {
      Deque<P> matches = byKey.get(valueKey.apply(v));
      P from = matches == null || matches.isEmpty() ? empty : matches.poll();
      out.add(write.apply(v, from));
    }
    return out;
  }

  /** The map counterpart: each model entry over the base entry of the same key. */
  static <P, V> Map<String, P> byName(Map<String, P> base, Map<String, V> values, BiFunction<V, P, P> write, P empty) {
    Map<String, P> out = new java.util.LinkedHashMap<>();
    values.forEach((name, v) -> out.put(name, write.apply(v, base.getOrDefault(name, empty))));
    return out;
  }
}
