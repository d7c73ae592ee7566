package io.pointsman.sandbox.router;

import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One immutable view of every record the router follows, numbered: a statement is routed against
 * one snapshot, and a held statement waits for a snapshot with a higher version. A record is either
 * not loaded yet (its watch has not delivered), absent (delivered, the key does not exist), or
 * present.
 */
final class RoutingSnapshot {
  private final long version;
  private final String cell;
  private final TopoKeys keys;
  private final Map<String, Optional<Object>> records;
  private final Map<String, List<String>> routingRules;
  private final int pending;

  /**
   * A view of {@code records}. The rules' map is taken from {@code previous} when it was made from
   * the very same SrvVSchema: every change of a shard or tablet record makes a snapshot, and at a
   * thousand moved tables the map of 9000 rules took milliseconds of the router's one thread each
   * time, in the middle of a switch.
   */
  RoutingSnapshot(long version, String cell, TopoKeys keys, Map<String, Optional<Object>> records, int pending,
      RoutingSnapshot previous) {
    this.version = version;
    this.cell = cell;
    this.keys = keys;
    this.records = Map.copyOf(records);
    this.pending = pending;
    SrvVSchema srv = srvVSchema().orElse(null);
    boolean sameAsBefore = srv != null && previous != null && previous.srvVSchema().orElse(null) == srv;
    this.routingRules = srv == null ? Map.of() : sameAsBefore ? previous.routingRules : srv.routingRules().asMap();
  }

  static RoutingSnapshot empty(String cell, TopoKeys keys) {
    return new RoutingSnapshot(0, cell, keys, Map.of(), 1, null);
  }

  long version() {
    return version;
  }

  String cell() {
    return cell;
  }

  boolean loaded(RecordKey<?> key) {
    return records.containsKey(key.key());
  }

  /** The record if loaded and present. */
  <T> Optional<T> get(RecordKey<T> key) {
    Optional<Object> v = records.get(key.key());
    return v == null ? Optional.empty() : v.map(key.type()::cast);
  }

  RecordKey<SrvVSchema> srvVSchemaKey() {
    return keys.srvVSchema(cell);
  }

  Optional<SrvVSchema> srvVSchema() {
    return get(srvVSchemaKey());
  }

  /** The cell's serving routing rules (from SrvVSchema), from_table to to_tables. */
  Map<String, List<String>> routingRules() {
    return routingRules;
  }

  RecordKey<SrvKeyspace> srvKeyspaceKey(String keyspace) {
    return keys.srvKeyspace(cell, keyspace);
  }

  RecordKey<Shard> shardKey(String keyspace, String shard) {
    return keys.shard(keyspace, shard);
  }

  RecordKey<Tablet> tabletKey(TabletAlias alias) {
    return keys.tablet(alias);
  }

  /** Whether every record being watched has been delivered at least once. */
  boolean settled() {
    return pending == 0;
  }
}
