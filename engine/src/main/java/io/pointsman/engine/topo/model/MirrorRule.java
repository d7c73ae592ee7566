package io.pointsman.engine.topo.model;

import io.pointsman.api.model.TabletType;

/**
 * vschema.MirrorRule: {@code percent} of the queries to {@code fromTable} ({@code ks.t}, or
 * {@code ks.t@replica}/{@code ks.t@rdonly}) are also sent to {@code toTable}.
 */
public record MirrorRule(String fromTable, String toTable, float percent) {
  /** The table a workflow's rule mirrors from: {@code ks.t}, or {@code ks.t@replica} / {@code ks.t@rdonly}. */
  public static String fromTable(String keyspace, String table, TabletType type) {
    return keyspace + "." + table + type.ruleSuffix();
  }

  /** The table a workflow's rule mirrors to: {@code ks.t}. */
  public static String toTable(String keyspace, String table) {
    return keyspace + "." + table;
  }
}
