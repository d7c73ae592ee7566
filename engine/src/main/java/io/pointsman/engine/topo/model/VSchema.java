package io.pointsman.engine.topo.model;

import java.util.Map;
import java.util.TreeMap;

/** vschema.Keyspace: one keyspace's VSchema. */
public record VSchema(boolean sharded, Map<String, Vindex> vindexes, Map<String, VSchemaTable> tables) {
  public VSchema {
    vindexes = vindexes == null ? Map.of() : new TreeMap<>(vindexes);
    tables = tables == null ? Map.of() : new TreeMap<>(tables);
  }
}
