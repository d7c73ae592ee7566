package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.names.Names;
import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.WriteGatePort;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.Shard;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * {@link WriteGatePort} on real Vitess, as vtctld stops MoveTables writes: the shard record's denied
 * tables for PRIMARY (written under the caller's locks), then RefreshState so the primary enforces
 * them; the result is the shard record read back. RefreshState only makes the tablet re-read the
 * topology, so repeating it after an unknown outcome changes nothing but that. The direct-MySQL
 * counterpart is {@link io.pointsman.engine.mysql.WriteBarrier} (deny triggers).
 */
public final class TabletWriteGate implements WriteGatePort {
  private final TopologyStore topo;
  private final TabletManagerClient client;
  private final TabletPrimaries primaries;
  private final FencePort fence;

  public TabletWriteGate(TopologyStore topo, TabletManagerClient client, TabletPrimaries primaries, FencePort fence) {
    this.topo = Objects.requireNonNull(topo, "topo");
    this.client = Objects.requireNonNull(client, "client");
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.fence = Objects.requireNonNull(fence, "fence");
  }

  @Override
  public SortedSet<String> deny(ShardRef shard, SortedSet<String> tables, LockSet locks) {
    return change(shard, tables, false, locks);
  }

  @Override
  public SortedSet<String> allow(ShardRef shard, SortedSet<String> tables, LockSet locks) {
    return change(shard, tables, true, locks);
  }

  @Override
  public SortedSet<String> denied(ShardRef shard) {
    return deniedIn(topo.getRequired(key(shard)).value());
  }

  private SortedSet<String> change(ShardRef shard, SortedSet<String> tables, boolean remove, LockSet locks) {
    if (tables == null || tables.isEmpty()) {
      throw PointsmanException.invalidArgument("no tables given to " + (remove ? "allow" : "deny") + " writes to on " + shard);
    }
    tables.forEach(Names::table);
    String action = (remove ? "allowing" : "denying") + " writes to " + tables;
    fence.raise(shard, locks, action);
    List<String> list = List.copyOf(tables);
    Shard after = topo.update(key(shard), s -> s.withDeniedTables(TabletType.PRIMARY, list, remove), locks).value();
    TabletPrimary p = primaries.resolve(shard);
    try {
      client.refreshState(p.endpoint());
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.UNKNOWN_OUTCOME) {
        throw e;
      }
      client.refreshState(p.endpoint());
    }
    SortedSet<String> denied = deniedIn(after);
    boolean done = remove ? Collections.disjoint(denied, tables) : denied.containsAll(tables);
    if (!done) {
      throw PointsmanException.internal(action + " on " + shard + ": the shard record shows denied tables " + denied, null);
    }
    return denied;
  }

  private RecordKey<Shard> key(ShardRef shard) {
    return topo.keys().shard(shard.keyspace(), shard.shard());
  }

  private static SortedSet<String> deniedIn(Shard s) {
    return Collections.unmodifiableSortedSet(new TreeSet<>(s.deniedTables(TabletType.PRIMARY)));
  }
}
