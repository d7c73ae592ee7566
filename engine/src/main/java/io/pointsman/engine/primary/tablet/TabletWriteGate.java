package io.pointsman.engine.primary.tablet;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.SqlIdentifiers;
import io.pointsman.engine.mysql.WriteScope;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.primary.WriteGatePort;
import io.pointsman.engine.tablet.DbaQuery;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.model.Shard;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link WriteGatePort} on real Vitess, as vtctld stops and allows writes. Tables (MoveTables): the
 * shard record's PRIMARY denied tables, written under the caller's locks, then RefreshState so the
 * primary enforces them, and on a deny {@code LOCK TABLES ... READ} through ExecuteFetchAsDba, which
 * returns once the writes that passed the tablet's check before it re-read its state have committed
 * (the lock goes with the call's connection). The whole database (Reshard): the caller has disabled
 * the shard's PRIMARY query service in SrvKeyspace; here the primary is told to re-read it.
 * RefreshState only makes the tablet re-read the topology, so repeating it after an unknown outcome
 * changes nothing but that. The direct-MySQL counterpart is
 * {@link io.pointsman.engine.mysql.WriteBarrier} (deny triggers).
 */
public final class TabletWriteGate extends TabletPort implements WriteGatePort {
  TabletWriteGate(Shared shared) {
    super(shared);
  }

  @Override
  public Duration deny(ShardRef shard, WriteScope scope, LockSet locks, Duration drainTimeout) {
    long start = System.nanoTime();
    change(shard, scope, false, locks);
    if (scope instanceof WriteScope.Tables t) {
      TabletPrimary p = primaries.resolve(shard);
      String tables = t.names().stream().map(n -> SqlIdentifiers.table(n) + " read").collect(Collectors.joining(", "));
      client.executeFetchAsDba(p.endpoint(), new DbaQuery("lock tables " + tables, p.dbName(),
          DbaQuery.DEFAULT_MAX_ROWS, false, false));
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Override
  public void allow(ShardRef shard, WriteScope scope, LockSet locks, Duration timeout) {
    change(shard, scope, true, locks);
  }

  @Override
  public SortedSet<String> denied(ShardRef shard) {
    return deniedIn(topo.getRequired(key(shard)).value());
  }

  private void change(ShardRef shard, WriteScope scope, boolean allow, LockSet locks) {
    String action = (allow ? "allowing" : "denying") + " writes to " + scope;
    fence.raise(shard, locks, action);
    if (scope instanceof WriteScope.Tables t) {
      List<String> list = List.copyOf(t.names());
      Shard after = topo.update(key(shard), s -> s.withDeniedTables(TabletType.PRIMARY, list, allow), locks).value();
      SortedSet<String> denied = deniedIn(after);
      boolean done = allow ? Collections.disjoint(denied, t.names()) : denied.containsAll(t.names());
      if (!done) {
        throw PointsmanException.internal(action + " on " + shard + ": the shard record shows denied tables " + denied,
            null);
      }
    }
    refresh(shard);
  }

  @Override
  public void refresh(ShardRef shard) {
    TabletPrimary p = primaries.resolve(shard);
    try {
      client.refreshState(p.endpoint());
    } catch (PointsmanException e) {
      if (e.code() != ErrorCode.UNKNOWN_OUTCOME) {
        throw e;
      }
      client.refreshState(p.endpoint());
    }
  }

  private RecordKey<Shard> key(ShardRef shard) {
    return topo.keys().shard(shard.keyspace(), shard.shard());
  }

  private static SortedSet<String> deniedIn(Shard s) {
    return Collections.unmodifiableSortedSet(new TreeSet<>(s.deniedTables(TabletType.PRIMARY)));
  }
}
