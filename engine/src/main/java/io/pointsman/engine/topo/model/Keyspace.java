package io.pointsman.engine.topo.model;

/** topodata.Keyspace, the fields pointsman reads. */
public record Keyspace(String keyspaceType, String baseKeyspace, String durabilityPolicy, String sidecarDbName) {
  public static final String DEFAULT_SIDECAR_DB = "_vt";

  public Keyspace {
    keyspaceType = keyspaceType == null ? "NORMAL" : keyspaceType;
  }

  public static Keyspace normal() {
    return new Keyspace("NORMAL", null, "none", null);
  }

  /** The sidecar database of this keyspace's tablets: {@code _vt} unless overridden. */
  public String sidecarDb() {
    return sidecarDbName == null || sidecarDbName.isEmpty() ? DEFAULT_SIDECAR_DB : sidecarDbName;
  }
}
