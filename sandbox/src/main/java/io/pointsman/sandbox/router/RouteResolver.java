package io.pointsman.sandbox.router;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import io.pointsman.sandbox.cluster.HashVindex;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Routes a statement against one snapshot the way vtgate does: the table through the routing
 * rules ({@code ks.t@type}, then {@code ks.t}, else the VSchema), the primary vindex value to a
 * keyspace id, the keyspace id to the shard of the tablet type's SrvKeyspace partition whose key
 * range holds it, the shard to its primary tablet. Pure: no I/O, no waiting.
 *
 * <p>Failures that a topology change can cure are {@link Route.Hold}s; failures it cannot cure
 * for this statement (unknown table, disabled routing rule, unsupported vindex) throw.
 */
final class RouteResolver {
  Route resolve(RoutingSnapshot snap, RoutedStatement st) {
    Optional<SrvVSchema> srvOpt = snap.srvVSchema();
    if (srvOpt.isEmpty()) {
      return new Route.Hold(null, null, snap.loaded(snap.srvVSchemaKey())
          ? "cell " + snap.cell() + " has no SrvVSchema"
          : "the router has not read SrvVSchema of cell " + snap.cell() + " yet");
    }
    SrvVSchema srv = srvOpt.get();
    QualifiedTable table = routedTable(snap, srv, st);
    VSchema vschema = srv.keyspaces().get(table.keyspace());
    String ks = table.keyspace();

    Optional<SrvKeyspace> sk = snap.get(snap.srvKeyspaceKey(ks));
    if (sk.isEmpty()) {
      return new Route.Hold(ks, null, snap.loaded(snap.srvKeyspaceKey(ks))
          ? "keyspace " + ks + " has no SrvKeyspace in cell " + snap.cell()
          : "the router has not read SrvKeyspace " + ks + " yet");
    }
    // The sandbox has primaries only; a tablet type without a partition of its own is served by
    // the primaries' partition (a Vitess keyspace always has all three).
    Optional<KeyspacePartition> partition = sk.get().partition(st.tabletType())
        .or(() -> sk.get().partition(TabletType.PRIMARY));
    if (partition.isEmpty()) {
      return new Route.Hold(ks, null, "SrvKeyspace " + ks + " has no " + st.tabletType() + " partition");
    }
    ShardReference ref;
    if (vschema.sharded()) {
      byte[] keyspaceId = keyspaceId(vschema, table, st);
      Optional<ShardReference> found = partition.get().shardReferences().stream()
          .filter(r -> keyRange(r).contains(keyspaceId)).findFirst();
      if (found.isEmpty()) {
        return new Route.Hold(ks, null, "no " + st.tabletType() + " shard of " + ks + " serves keyspace id "
            + KeyRange.hex(keyspaceId));
      }
      ref = found.get();
    } else {
      List<ShardReference> refs = partition.get().shardReferences();
      if (refs.size() != 1) {
        return new Route.Hold(ks, null, "unsharded keyspace " + ks + " has " + refs.size() + " "
            + st.tabletType() + " shards, expected 1");
      }
      ref = refs.get(0);
    }
    String shardName = ref.name();
    String where = ks + "/" + shardName;

    for (ShardTabletControl tc : partition.get().shardTabletControls()) {
      if (tc.name().equals(shardName) && tc.queryServiceDisabled()) {
        return new Route.Hold(ks, shardName, "query service is disabled on " + where
            + " (SrvKeyspace " + st.tabletType() + " partition)");
      }
    }
    Optional<Shard> shard = snap.get(snap.shardKey(ks, shardName));
    if (shard.isEmpty()) {
      return new Route.Hold(ks, shardName, snap.loaded(snap.shardKey(ks, shardName))
          ? "shard " + where + " has no Shard record"
          : "the router has not read the Shard record of " + where + " yet");
    }
    if (denied(shard.get().deniedTables(st.tabletType()), table.table())) {
      return new Route.Hold(ks, shardName, "table " + table.table() + " is denied on " + where
          + " (tablet_controls " + st.tabletType() + " denied_tables)");
    }
    if (st.tabletType() == TabletType.PRIMARY && !shard.get().isPrimaryServing()) {
      return new Route.Hold(ks, shardName, "the primary of " + where + " is not serving (is_primary_serving=false)");
    }
    if (shard.get().primaryAlias() == null) {
      return new Route.Hold(ks, shardName, "shard " + where + " has no primary");
    }
    var tabletKey = snap.tabletKey(shard.get().primaryAlias());
    Optional<Tablet> tablet = snap.get(tabletKey);
    if (tablet.isEmpty()) {
      return new Route.Hold(ks, shardName, snap.loaded(tabletKey)
          ? "primary tablet " + shard.get().primaryAlias() + " of " + where + " has no Tablet record"
          : "the router has not read tablet " + shard.get().primaryAlias() + " yet");
    }
    Tablet t = tablet.get();
    String host = t.mysqlHostname() != null && !t.mysqlHostname().isEmpty() ? t.mysqlHostname() : t.hostname();
    return new Route.Serve(new Target(ks, table.table(), shardName, t.alias() != null ? t.alias()
        : shard.get().primaryAlias(), host, t.mysqlPort(), t.dbName()));
  }

  /** vtgate's FindRoutedTable: {@code [ks.]t@type}, then {@code [ks.]t}, then the VSchema itself. */
  private QualifiedTable routedTable(RoutingSnapshot snap, SrvVSchema srv, RoutedStatement st) {
    QualifiedTable asked = QualifiedTable.parse(st.table());
    String qualified = asked.keyspace() == null ? asked.table() : asked.keyspace() + "." + asked.table();
    String withType = qualified + "@" + st.tabletType().name().toLowerCase(Locale.ROOT);
    for (String name : List.of(withType, qualified)) {
      List<String> to = snap.routingRules().get(name);
      if (to == null) {
        continue;
      }
      if (to.isEmpty()) {
        throw fail(ErrorCode.FAILED_PRECONDITION, st, "table " + asked.table() + " has been disabled by routing rule "
            + name);
      }
      QualifiedTable target = QualifiedTable.parse(to.get(0));
      if (target.keyspace() == null) {
        throw fail(ErrorCode.INVALID_ARGUMENT, st, "routing rule " + name + " points to '" + to.get(0)
            + "', which names no keyspace");
      }
      return known(srv, target, st, "routing rule " + name + " points to " + to.get(0) + ", but ");
    }
    if (asked.keyspace() != null) {
      return known(srv, asked, st, "");
    }
    List<String> owners = new ArrayList<>();
    srv.keyspaces().forEach((ks, vs) -> {
      if (vs.tables().containsKey(asked.table())) {
        owners.add(ks);
      }
    });
    if (owners.size() > 1) {
      throw fail(ErrorCode.INVALID_ARGUMENT, st, "table " + asked.table() + " is ambiguous: it is in keyspaces "
          + owners + "; qualify it");
    }
    if (owners.isEmpty()) {
      throw fail(ErrorCode.NOT_FOUND, st, "table " + asked.table() + " not found in the VSchema of cell "
          + snap.cell());
    }
    return new QualifiedTable(owners.get(0), asked.table());
  }

  /** A table in a keyspace must be in the VSchema if the keyspace is sharded; unsharded ones take any table. */
  private QualifiedTable known(SrvVSchema srv, QualifiedTable t, RoutedStatement st, String prefix) {
    VSchema vs = srv.keyspaces().get(t.keyspace());
    if (vs == null) {
      throw fail(ErrorCode.NOT_FOUND, st, prefix + "keyspace " + t.keyspace() + " is not in the SrvVSchema");
    }
    if (vs.sharded() && !vs.tables().containsKey(t.table())) {
      throw fail(ErrorCode.NOT_FOUND, st, prefix + "table " + t.table() + " is not in the VSchema of sharded keyspace "
          + t.keyspace());
    }
    return t;
  }

  private byte[] keyspaceId(VSchema vs, QualifiedTable t, RoutedStatement st) {
    VSchemaTable table = vs.tables().get(t.table());
    if (table.columnVindexes().isEmpty()) {
      throw fail(ErrorCode.FAILED_PRECONDITION, st, "table " + t + " has no primary vindex");
    }
    String vindexName = table.columnVindexes().get(0).name();
    Vindex vindex = vs.vindexes().get(vindexName);
    if (vindex == null) {
      throw fail(ErrorCode.FAILED_PRECONDITION, st, "vindex " + vindexName + " of table " + t + " is not defined");
    }
    if (!HashVindex.TYPE.equals(vindex.type())) {
      throw fail(ErrorCode.INVALID_ARGUMENT, st, "vindex " + vindexName + " of table " + t + " has type "
          + vindex.type() + "; the sandbox router computes only '" + HashVindex.TYPE + "'");
    }
    return HashVindex.keyspaceId(st.shardingKey());
  }

  private static KeyRange keyRange(ShardReference ref) {
    return ref.keyRange() != null ? ref.keyRange() : KeyRange.ofShard(ref.name());
  }

  /** Vitess denied_tables entries are names, or regular expressions when they start with '/'. */
  static boolean denied(List<String> deniedTables, String table) {
    for (String d : deniedTables) {
      if (d.startsWith("/") ? Pattern.matches(d.substring(1), table) : d.equals(table)) {
        return true;
      }
    }
    return false;
  }

  private static RouterException fail(ErrorCode code, RoutedStatement st, String message) {
    return RouterException.of(code, st.table(), st.describe() + ": " + message);
  }

  /** {@code t} or {@code ks.t}; keyspace null when unqualified. */
  record QualifiedTable(String keyspace, String table) {
    static QualifiedTable parse(String name) {
      int dot = name.indexOf('.');
      return dot < 0 ? new QualifiedTable(null, name) : new QualifiedTable(name.substring(0, dot), name.substring(dot + 1));
    }

    @Override
    public String toString() {
      return keyspace == null ? table : keyspace + "." + table;
    }
  }
}
