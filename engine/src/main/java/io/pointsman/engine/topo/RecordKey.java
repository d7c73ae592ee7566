package io.pointsman.engine.topo;

import java.util.Objects;

/** An etcd key together with the record type stored there; made by {@link TopoKeys}. */
public record RecordKey<T>(String key, Class<T> type) {
  public RecordKey {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
  }

  @Override
  public String toString() {
    return type.getSimpleName() + " " + key;
  }
}
