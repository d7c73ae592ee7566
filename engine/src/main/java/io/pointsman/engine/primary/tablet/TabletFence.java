package io.pointsman.engine.primary.tablet;

import static io.pointsman.engine.tablet.VReplicationStatements.sqlString;

import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.engine.lock.LockCheck;
import io.pointsman.engine.lock.LockService;
import io.pointsman.engine.lock.LockStatus;
import io.pointsman.engine.mysql.MySqlFence;
import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.tablet.DbaQuery;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * The fence on a real vttablet: first asks etcd that every lock is still held (when a
 * {@link LockService} is given), then raises each lock resource's row of {@code _pointsman.lock_fence}
 * to our token through ExecuteFetchAsDba ({@code greatest()}, so only upwards) and reads it back; a
 * higher token there means a newer holder already changed this primary, and nothing is done.
 *
 * <p>Weaker than {@link MySqlFence}: the raise and the change that follows are separate statements
 * on separate connections (vttablet owns the {@code _vt} tables), so a change already in flight when
 * the lease is lost can still land; every later one of the old holder is refused.
 */
public final class TabletFence implements FencePort {

  private final TabletManagerClient client;
  private final TabletPrimaries primaries;
  private final Optional<LockService> locks;
  private final OwnTable table;

  /**
   * @param locks asked whether the locks are still held before each raise; empty to rely on the
   *     token comparison alone (tests, or a caller that has just checked)
   */
  public TabletFence(TabletManagerClient client, TabletPrimaries primaries, Optional<LockService> locks) {
    this.client = Objects.requireNonNull(client, "client");
    this.primaries = Objects.requireNonNull(primaries, "primaries");
    this.locks = Objects.requireNonNull(locks, "locks");
    this.table = new OwnTable(client, "lock_fence",
        "resource varbinary(512) not null, token bigint not null, updated_at datetime(6) not null, primary key (resource)");
  }

  @Override
  public void raise(ShardRef shard, LockSet lockSet, String action) {
    raiseOn(shard, lockSet, action);
  }

  /**
   * {@link #raise(ShardRef, LockSet, String)}, returning the primary it was raised on, for the change
   * that follows: the port then needs no resolution of its own (each is a few etcd reads, before each
   * change on a tablet, inside the write window). etcd is asked about the locks while the primary is
   * resolved; the answer is taken before the tablet is asked anything.
   */
  public TabletPrimary raiseOn(ShardRef shard, LockSet lockSet, String action) {
    Asked asked = ask(shard, lockSet, action);
    TabletPrimary primary = primaries.resolve(shard);
    raise(primary, asked);
    return primary;
  }

  /** Raises the fence on the primary the caller resolved for the change it is about to make there. */
  public void raise(TabletPrimary primary, ShardRef shard, LockSet lockSet, String action) {
    raise(primary, ask(shard, lockSet, action));
  }

  /**
   * The lock check of one change, put to etcd ahead: a port asks when it starts and raises the fence
   * with it ({@link #raise(TabletPrimary, Asked)}) after the reads the change needs, so that etcd
   * answers while the port reads instead of after. Nothing is asked when no lock service was given.
   */
  public record Asked(ShardRef shard, List<LockToken> claims, Optional<LockCheck> held, String action) {}

  /** Asks etcd about the locks of a change to be made on the shard's primary; see {@link Asked}. */
  public Asked ask(ShardRef shard, LockSet lockSet, String action) {
    List<LockToken> claims = MySqlFence.claims(lockSet, action, shard);
    return new Asked(shard, claims, locks.map(service -> service.ask(claims)), action);
  }

  /** Raises the fence on the primary the caller resolved, with the check it asked for; see {@link Asked}. */
  public void raise(TabletPrimary primary, Asked asked) {
    List<LockToken> claims = asked.claims();
    asked.held().ifPresent(check -> requireHeld(check.statuses(), claims, asked.shard(), asked.action()));
    table.ensure(primary);
    // one statement raises every row and one reads them back, however many locks guard the change,
    // both in one call on one connection: this runs before each change on a tablet, inside the
    // write window, and vttablet opens a DBA connection for each call
    StringBuilder values = new StringBuilder();
    for (LockToken lock : claims) {
      values.append(values.length() == 0 ? "" : ", ").append('(').append(sqlString(MySqlFence.resource(lock)))
          .append(", ").append(lock.fencingToken()).append(", now(6))");
    }
    // Not binlogged: a fence write would move the primary's position past the last write its streams
    // carry, and a stream that has only an empty transaction to apply records reaching it a second
    // later (vplayer saves an empty transaction's position when idle), all inside the write window.
    // Replicas do not need the rows: a promoted replica is refused by the switch's planned-primary check.
    List<TabletQueryResult> results = client.executeMultiFetchAsDba(primary.endpoint(), new DbaQuery("insert into "
        + table.name() + " (resource, token, updated_at) values " + values
        + " on duplicate key update token = greatest(token, values(token)), updated_at = now(6); "
        + readStatement(claims), "", DbaQuery.DEFAULT_MAX_ROWS, true, false));
    if (results.size() != 2) {
      throw PointsmanException.internal("raising the fence on " + primary + " gave " + results.size()
          + " results for its two statements", null);
    }
    Map<String, Long> stored = tokens(results.get(1));
    for (LockToken lock : claims) {
      String resource = MySqlFence.resource(lock);
      Long there = stored.get(resource);
      if (there == null) {
        throw PointsmanException.internal("fence row " + resource + " vanished on " + primary, null);
      }
      long ours = lock.fencingToken();
      if (there > ours) {
        throw new LockLostException(lock.key(), "lock on " + lock.resource() + " was taken over: the fence "
            + resource + " on " + primary + " holds token " + there + ", ours is " + ours + "; " + asked.action()
            + " was not applied");
      }
    }
  }

  private String readStatement(List<LockToken> claims) {
    String in = claims.stream().map(l -> sqlString(MySqlFence.resource(l))).distinct().collect(Collectors.joining(", "));
    return "select resource, token from " + table.name() + " where resource in (" + in + ")";
  }

  private static Map<String, Long> tokens(TabletQueryResult r) {
    Map<String, Long> out = new HashMap<>();
    for (List<String> row : r.rows()) {
      out.put(row.get(0), Long.parseLong(row.get(1)));
    }
    return out;
  }

  @Override
  public OptionalLong highestToken(ShardRef shard, String resource) {
    TabletPrimary primary = primaries.resolve(shard);
    table.ensure(primary);
    return read(primary, resource);
  }

  private static void requireHeld(List<LockStatus> statuses, List<LockToken> claims, ShardRef shard, String action) {
    for (int i = 0; i < claims.size(); i++) {
      if (!statuses.get(i).held()) {
        throw new LockLostException(claims.get(i).key(), "lock on " + claims.get(i).resource() + " is no longer held ("
            + statuses.get(i).lossReason() + ": " + statuses.get(i).message() + "); " + action + " on " + shard
            + " was not applied");
      }
    }
  }

  private OptionalLong read(TabletPrimary primary, String resource) {
    TabletQueryResult r = client.executeFetchAsDba(primary.endpoint(),
        DbaQuery.of("select token from " + table.name() + " where resource = " + sqlString(resource)));
    return r.rows().isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(r.rows().get(0).get(0)));
  }
}
