package io.pointsman.api.model;

/** Vitess's migration type: MoveTables moves TABLES between keyspaces, Reshard moves SHARDS. */
public enum MigrationType {
  TABLES,
  SHARDS
}
