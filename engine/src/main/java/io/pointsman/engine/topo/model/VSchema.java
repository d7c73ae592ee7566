package io.pointsman.engine.topo.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * vschema.Keyspace: one keyspace's VSchema. Its maps cannot be changed, as the topology store hands
 * one decoded instance to every reader of a record at a revision.
 */
public record VSchema(boolean sharded, Map<String, Vindex> vindexes, Map<String, VSchemaTable> tables) {
  public VSchema {
    vindexes = vindexes == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(vindexes));
    tables = tables == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(tables));
  }
}
