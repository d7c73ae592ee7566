package io.pointsman.engine.topo.model;

import java.util.Map;

/** vschema.Vindex. */
public record Vindex(String type, Map<String, String> params, String owner) {
  public Vindex {
    params = params == null ? Map.of() : Map.copyOf(params);
  }
}
