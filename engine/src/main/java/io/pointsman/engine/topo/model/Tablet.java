package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TabletAlias;
import java.util.Map;

/** topodata.Tablet: where a tablet's MySQL listens and what it serves. */
public record Tablet(
    TabletAlias alias,
    String hostname,
    Map<String, Integer> portMap,
    String keyspace,
    String shard,
    KeyRange keyRange,
    TabletType type,
    String dbNameOverride,
    String mysqlHostname,
    int mysqlPort) {
  public Tablet {
    portMap = portMap == null ? Map.of() : Map.copyOf(portMap);
  }

  /** The database this tablet serves: {@code db_name_override}, else Vitess's {@code vt_<keyspace>}. */
  public String dbName() {
    return dbNameOverride == null || dbNameOverride.isEmpty() ? "vt_" + keyspace : dbNameOverride;
  }
}
