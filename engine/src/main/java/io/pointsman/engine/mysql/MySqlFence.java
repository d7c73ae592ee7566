package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing of MySQL changes with the etcd locks they are made under (docs/locks.md §8). A lease
 * can expire while its holder is paused; the holder cannot know, but MySQL can: every lock's
 * create revision increases with every acquisition, and {@code <sidecar>.lock_fence} keeps, per
 * lock, the highest one any change on this server was made under.
 *
 * <p>A guarded change runs in one transaction that first reads each lock's row under a row lock;
 * if a row holds a higher token, a newer holder has already written here, and the transaction
 * rolls back with {@link LockLostException} having changed nothing; rows below our token are
 * raised to it (only upwards). The row locks are held until commit, so a newer holder's check
 * waits for an older holder's change in flight and then wins.
 *
 * <p>The fence is kept per lock resource (the lock's directory, e.g.
 * {@code /vitess/global/keyspaces/customer}), not per database: two workflows that hold different
 * locks may both legitimately change one primary, and only a newer holder of the same lock may
 * fence an older one out. Rows are claimed in resource order so concurrent claims cannot deadlock.
 *
 * <h2>DDL</h2>
 * Statements that cannot share a transaction (trigger DDL, drops, renames) run through
 * {@link #ddl}: each one holds a MySQL user-level lock of the fence resource (one of
 * {@link #DDL_SLOTS} "slots", so several DDL sessions of one holder can run at once) across a
 * check of the fence row and the statement itself. Raising a fence row to a newer token or epoch
 * takes every slot of the resource before writing the row, so it waits for the DDL statements in
 * flight and every later statement sees the raised row: no DDL of an older holder lands after a newer holder has
 * raised the fence. A raise locks the row before it takes the slots and keeps them until it has
 * committed; a DDL session holds a slot but never a row lock: the two cannot wait in a cycle.
 */
public final class MySqlFence {
  private static final Logger log = LoggerFactory.getLogger(MySqlFence.class);
  private static final int MAX_RESOURCE_BYTES = 512;
  private static final int DEADLOCK_ATTEMPTS = 3;
  private static final String LOCKS_DIR = "/locks/";
  /** DDL sessions of one holder that may run statements under one lock resource at once. */
  public static final int DDL_SLOTS = 4;
  /**
   * How long a fence raise waits for the DDL statements in flight; each waits at most its own
   * request's timeout for its metadata lock, so this only runs out when something is stuck.
   */
  private static final Duration RAISE_WAIT = Duration.ofMinutes(5);

  private final ConnectionPools pools;
  private final SidecarSchema schema;
  private volatile DdlHook hook = DdlHook.NONE;

  /** The etcd cluster's current revision, when known: tells a restored etcd from a newer holder. */
  private final LongSupplier etcdRevision;

  public MySqlFence(ConnectionPools pools, SidecarSchema schema) {
    this(pools, schema, null);
  }

  /**
   * @param etcdRevision the current revision of the etcd cluster the locks live in (null: unknown);
   *     a fence ahead of it means etcd went back in time, not that a newer holder wrote
   */
  public MySqlFence(ConnectionPools pools, SidecarSchema schema, LongSupplier etcdRevision) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.etcdRevision = etcdRevision;
  }

  /** Installs a test seam around fenced DDL statements. */
  void hook(DdlHook hook) {
    this.hook = Objects.requireNonNull(hook, "hook");
  }

  DdlHook hook() {
    return hook;
  }

  ConnectionPools pools() {
    return pools;
  }

  /** Makes sure the sidecar tables exist on the endpoint (for readers of them that change nothing). */
  void ensureSchema(PrimaryEndpoint endpoint) {
    schema.ensure(endpoint);
  }

  /** The fence resource of a lock: its key without the {@code /locks/<lease>} part. */
  public static String resource(LockToken lock) {
    String key = lock.key();
    int at = key.lastIndexOf(LOCKS_DIR);
    String resource = at > 0 ? key.substring(0, at) : key;
    if (resource.getBytes(StandardCharsets.UTF_8).length > MAX_RESOURCE_BYTES) {
      throw PointsmanException.invalidArgument("lock key " + key + " is too long to fence with");
    }
    return resource;
  }

  /**
   * Runs {@code work} in one transaction on the endpoint's primary after the fence check passes,
   * and commits. A transaction that deadlocks is retried from the start (at most three times).
   *
   * @param action what the work does, for messages (e.g. "stopping workflow wf")
   * @throws LockLostException when any lock's fence holds a higher token; nothing was changed
   * @throws PointsmanException UNKNOWN_OUTCOME when the connection failed during commit
   */
  public <T> T inTransaction(PrimaryEndpoint endpoint, LockSet locks, String action, SqlWork<T> work) {
    List<LockToken> claims = claims(locks, action, endpoint);
    schema.ensure(endpoint);
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(endpoint, claims, locks.epoch(), action, work);
      } catch (SQLException e) {
        if (SqlErrors.isDeadlock(e) && attempt < DEADLOCK_ATTEMPTS) {
          log.info("{} on {} deadlocked (attempt {}), retrying", action, endpoint, attempt);
          continue;
        }
        throw SqlErrors.translate(action + " on " + endpoint, e);
      }
    }
  }

  /**
   * The fence check alone, committed at once: for statements that cannot share a transaction
   * (DDL, LOCK TABLES). Run them right after it, and make them idempotent: a newer holder may
   * still slip in between, and the fence then stops only the next change, not this one.
   */
  public void check(PrimaryEndpoint endpoint, LockSet locks, String action) {
    inTransaction(endpoint, locks, action, c -> null);
  }

  /**
   * Runs one statement that cannot share a transaction with the fence (DDL) on the caller's
   * connection, with the fence checked under a guard held until the statement has ended: a newer
   * holder's fence raise waits for it, and once raised, refuses this and every later statement of
   * older holders. The connection must be in autocommit mode and is left so.
   *
   * <p>Its waits end by {@code deadlineNanos}: the guard's, and then the metadata lock's, through
   * the session's {@code lock_wait_timeout}, set to the whole seconds left (rounded down, so the
   * wait never outlasts the deadline; 0, no wait, in the last second — MySQL, whose minimum is 1,
   * may then wait one second).
   *
   * @param slot which of the {@link #DDL_SLOTS} guards this session takes (its index among the
   *     caller's concurrent DDL sessions)
   * @param deadlineNanos {@link System#nanoTime()} by which the statement must have got its locks
   * @throws LockLostException when a newer holder raised the fence; the statement did not run
   * @throws PointsmanException DEADLINE_EXCEEDED when the guard was not free in time
   * @throws SQLException from the statement, e.g. ER_LOCK_WAIT_TIMEOUT when a metadata lock was not
   */
  public void ddl(Connection c, PrimaryEndpoint endpoint, LockSet locks, int slot, long deadlineNanos, String action,
      String sql) throws SQLException {
    List<LockToken> claims = claims(locks, action, endpoint);
    if (slot < 0 || slot >= DDL_SLOTS) {
      throw PointsmanException.invalidArgument("DDL slot " + slot + " is not in [0, " + DDL_SLOTS + ")");
    }
    schema.ensure(endpoint);
    hook.beforeGuard(sql);
    List<String> guards = claims.stream().map(l -> guardName(endpoint, resource(l), slot)).toList();
    takeGuards(c, endpoint, guards, left(deadlineNanos), action);
    try {
      boolean raised = false;
      for (int i = 0; i < claims.size(); i++) {
        LockToken lock = claims.get(i);
        Mark ours = new Mark(lock.fencingToken(), locks.epoch());
        Mark stored = sharedRead(c, endpoint, lock);
        if (stored.before(ours) && !raised) {
          // Not raised to ours yet (no check before this statement, or a recreated table):
          // raising needs every slot, which this session must not hold while it waits for them.
          // The guards were let go meanwhile, so every row is read again under them.
          releaseGuards(c, guards);
          guards = List.of();
          check(endpoint, locks, action);
          guards = claims.stream().map(l -> guardName(endpoint, resource(l), slot)).toList();
          takeGuards(c, endpoint, guards, left(deadlineNanos), action);
          raised = true;
          i = -1;
          continue;
        }
        if (ours.before(stored)) {
          throw lost(lock, endpoint, stored, ours, action);
        }
      }
      hook.guarded(sql);
      try (Statement st = c.createStatement()) {
        st.execute("SET SESSION lock_wait_timeout = " + left(deadlineNanos).toSeconds());
        st.execute(sql);
      }
    } finally {
      releaseGuards(c, guards);
    }
  }

  private static Duration left(long deadlineNanos) {
    return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
  }

  private OptionalLong currentEtcdRevision() {
    if (etcdRevision == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(etcdRevision.getAsLong());
    } catch (RuntimeException e) {
      // Cannot tell: report the lost lock, which is what a higher fence means in a sane etcd.
      log.warn("could not read etcd's revision to tell a restored etcd from a newer lock holder", e);
      return OptionalLong.empty();
    }
  }

  /** The highest token recorded for a resource on the endpoint's server; empty if none yet. */
  public OptionalLong highestToken(PrimaryEndpoint endpoint, String resource) {
    schema.ensure(endpoint);
    try (Connection c = pools.connection(endpoint);
        PreparedStatement ps = c.prepareStatement(
            "SELECT token FROM " + table(endpoint) + " WHERE resource = ?")) {
      ps.setBytes(1, resource.getBytes(StandardCharsets.UTF_8));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the fence " + resource + " on " + endpoint, e);
    }
  }

  private <T> T attempt(PrimaryEndpoint endpoint, List<LockToken> claims, long epoch, String action, SqlWork<T> work)
      throws SQLException {
    try (Connection c = pools.connection(endpoint)) {
      c.setAutoCommit(false);
      List<String> guards = new ArrayList<>();
      try {
        claimAll(c, endpoint, claims, epoch, action, guards);
        T result = work.run(c);
        commit(c, endpoint, action);
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        // After commit or rollback: a DDL check reads committed rows, so a raise is seen by the
        // first statement that gets a guard after it.
        releaseGuards(c, guards);
        restoreAutoCommit(c);
      }
    }
  }

  private static void restoreAutoCommit(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      // A broken connection: the pool discards it, and the primary failure is already on its way.
      log.debug("could not restore autocommit", e);
    }
  }

  /**
   * Claims every lock's fence row for this transaction, in three round trips whatever the number
   * of locks (a step stamped with a new epoch raises every row it claims): all rows are read under
   * row locks in one statement; a row that holds more than ours refuses the claim; the rows that
   * hold less are raised, first taking every DDL guard of their resources in one statement (so
   * the DDL statements in flight end first), then writing the rows. The guards go again after
   * commit; the row locks keep later claims and DDL checks waiting until this transaction ends.
   * Rows are locked before guards are waited for, and a DDL session holds guards but never a row
   * lock, so the two kinds cannot wait in a cycle.
   */
  private void claimAll(Connection c, PrimaryEndpoint endpoint, List<LockToken> claims, long epoch, String action,
      List<String> held) throws SQLException {
    Map<String, Mark> current = lockedRead(c, endpoint, claims);
    List<LockToken> below = new ArrayList<>();
    for (LockToken lock : claims) {
      Mark ours = new Mark(lock.fencingToken(), epoch);
      if (current.get(resource(lock)).before(ours)) {
        below.add(lock);
        current.put(resource(lock), ours); // two of our locks on one resource: the newer must win
      }
    }
    for (LockToken lock : claims) {
      Mark ours = new Mark(lock.fencingToken(), epoch);
      Mark stored = current.get(resource(lock));
      if (ours.before(stored)) {
        throw lost(lock, endpoint, stored, ours, action);
      }
    }
    if (below.isEmpty()) {
      return;
    }
    List<String> guards = new ArrayList<>();
    for (LockToken lock : below) {
      for (int slot = 0; slot < DDL_SLOTS; slot++) {
        guards.add(guardName(endpoint, resource(lock), slot));
      }
    }
    takeGuards(c, endpoint, guards, RAISE_WAIT, action);
    held.addAll(guards);
    raise(c, endpoint, below, epoch);
  }

  /**
   * The rows of the claimed resources under exclusive row locks (a missing row: its gap, read as
   * (0, 0)), held until the transaction ends; one statement, which locks them in index order.
   */
  private static Map<String, Mark> lockedRead(Connection c, PrimaryEndpoint endpoint, List<LockToken> claims)
      throws SQLException {
    Map<String, Mark> marks = new HashMap<>();
    claims.forEach(lock -> marks.put(resource(lock), new Mark(0, 0)));
    String in = String.join(", ", Collections.nCopies(marks.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT resource, token, epoch FROM " + table(endpoint) + " WHERE resource IN (" + in + ") FOR UPDATE")) {
      int i = 1;
      for (String resource : marks.keySet()) {
        ps.setBytes(i++, resource.getBytes(StandardCharsets.UTF_8));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          marks.put(new String(rs.getBytes(1), StandardCharsets.UTF_8), new Mark(rs.getLong(2), rs.getLong(3)));
        }
      }
    }
    return marks;
  }

  /**
   * Raises the locks' rows to their tokens and {@code epoch} in one statement (a step raises the
   * rows of all its locks on each primary it changes, in the write window too). Only upwards, as
   * the pair (token, epoch); assignments run left to right, so the epoch is decided against the
   * token as it was. A resource two of the locks share is raised once (under one token: a set with
   * two tokens of one resource was refused before this). Portable: no VALUES() (deprecated in MySQL
   * 8) and no row alias (unknown to MariaDB); a row's own token is picked by its resource instead.
   */
  private static void raise(Connection c, PrimaryEndpoint endpoint, List<LockToken> locks, long epoch)
      throws SQLException {
    Map<String, Long> tokens = new TreeMap<>();
    locks.forEach(lock -> tokens.merge(resource(lock), lock.fencingToken(), Math::max));
    int n = tokens.size();
    String ours = "CASE resource" + " WHEN ? THEN ?".repeat(n) + " END";
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint)
        + " (resource, token, epoch, updated_at) VALUES "
        + String.join(", ", Collections.nCopies(n, "(?, ?, ?, NOW(6))"))
        + " ON DUPLICATE KEY UPDATE epoch = IF(" + ours + " > token OR (" + ours + " = token AND ? > epoch), ?, epoch),"
        + " token = GREATEST(token, " + ours + "), updated_at = NOW(6)")) {
      int i = 1;
      for (Map.Entry<String, Long> row : tokens.entrySet()) {
        ps.setBytes(i++, row.getKey().getBytes(StandardCharsets.UTF_8));
        ps.setLong(i++, row.getValue());
        ps.setLong(i++, epoch);
      }
      i = bindOurs(ps, i, tokens);
      i = bindOurs(ps, i, tokens);
      ps.setLong(i++, epoch);
      ps.setLong(i++, epoch);
      bindOurs(ps, i, tokens);
      ps.executeUpdate();
    }
  }

  /** Binds one {@code CASE resource WHEN ? THEN ? ...} from parameter {@code i}; the next one's index. */
  private static int bindOurs(PreparedStatement ps, int i, Map<String, Long> tokens) throws SQLException {
    for (Map.Entry<String, Long> row : tokens.entrySet()) {
      ps.setBytes(i++, row.getKey().getBytes(StandardCharsets.UTF_8));
      ps.setLong(i++, row.getValue());
    }
    return i;
  }

  /**
   * What a fence row holds, ordered by token, then epoch: a newer lock grant, or under the same
   * grant a newer execution of the critical section. (0, 0) for a row not written yet.
   */
  private record Mark(long token, long epoch) {
    boolean before(Mark other) {
      return token < other.token || (token == other.token && epoch < other.epoch);
    }
  }

  private static Mark mark(ResultSet rs) throws SQLException {
    return rs.next() ? new Mark(rs.getLong(1), rs.getLong(2)) : new Mark(0, 0);
  }

  /**
   * The row as last committed, read without a row lock (the DDL session is in autocommit mode): a
   * raise holds the guards until it has committed, so under a guard the committed row is current.
   */
  private static Mark sharedRead(Connection c, PrimaryEndpoint endpoint, LockToken lock) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT token, epoch FROM " + table(endpoint) + " WHERE resource = ?")) {
      ps.setBytes(1, resource(lock).getBytes(StandardCharsets.UTF_8));
      try (ResultSet rs = ps.executeQuery()) {
        return mark(rs);
      }
    }
  }

  /**
   * The name of one DDL guard: a server-wide MySQL user-level lock, so it names the sidecar
   * database and the resource, hashed to stay within the 64 characters lock names may have.
   */
  static String guardName(PrimaryEndpoint endpoint, String resource, int slot) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest((endpoint.sidecarDb() + "\0" + resource).getBytes(StandardCharsets.UTF_8));
      return "pointsman_fence_" + java.util.HexFormat.of().formatHex(digest, 0, 20) + "_" + slot;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static void takeGuards(Connection c, PrimaryEndpoint endpoint, List<String> guards, Duration wait,
      String action) throws SQLException {
    if (guards.isEmpty()) {
      return;
    }
    double seconds = Math.max(0, wait.toMillis()) / 1000.0;
    // One round trip; the functions run left to right, in the order the caller sorted the guards in.
    String sql = "SELECT " + guards.stream().map(g -> "GET_LOCK(?, " + seconds + ")")
        .collect(Collectors.joining(", "));
    boolean all = true;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < guards.size(); i++) {
        ps.setString(i + 1, guards.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        for (int i = 1; i <= guards.size(); i++) {
          all &= rs.getInt(i) == 1;
        }
      }
    } catch (SQLException | RuntimeException e) {
      releaseGuards(c, guards);
      throw e;
    }
    if (!all) {
      releaseGuards(c, guards);
      throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, action + " on " + endpoint + ": a DDL statement"
          + " or fence raise under the same lock did not end within " + wait + "; nothing was changed");
    }
  }

  /** Gives the guards back; a broken connection gives them back by ending its session. */
  private static void releaseGuards(Connection c, List<String> guards) {
    if (guards.isEmpty()) {
      return;
    }
    String sql = "SELECT " + guards.stream().map(g -> "RELEASE_LOCK(?)").collect(Collectors.joining(", "));
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < guards.size(); i++) {
        ps.setString(i + 1, guards.get(i));
      }
      ps.executeQuery().close();
    } catch (SQLException e) {
      log.debug("could not release the DDL guards {}", guards, e);
    }
  }

  private PointsmanException lost(LockToken lock, PrimaryEndpoint endpoint, Mark stored, Mark ours,
      String action) {
    if (stored.token() > ours.token()) {
      OptionalLong now = currentEtcdRevision();
      if (now.isPresent() && now.getAsLong() < stored.token()) {
        // No holder can have got a token etcd has not reached yet: etcd went back in time, and
        // every new lock will stay below this fence until its revision passes it.
        return PointsmanException.failedPrecondition("the lock's fencing token " + ours.token()
            + " is below the highest token " + stored.token() + " this shard primary (" + endpoint
            + ") has seen for " + resource(lock) + ", and etcd's revision is " + now.getAsLong()
            + ", below that token too: was etcd restored from a backup without --bump-revision? Restore the"
            + " snapshot again with etcdutl snapshot restore --bump-revision N --mark-compacted, N well above "
            + (stored.token() - now.getAsLong()) + " (the difference) plus the writes since the backup, then retry; "
            + action + " was not applied, nothing was changed");
      }
      return new LockLostException(lock.key(), "lock on " + lock.resource() + " was taken over: the fence "
          + resource(lock) + " on " + endpoint + " holds token " + stored.token() + ", ours is " + ours.token()
          + "; " + action + " was not applied");
    }
    return new LockLostException(lock.key(), "a newer execution of this step holds the lock on " + lock.resource()
        + ": the fence " + resource(lock) + " on " + endpoint + " holds token " + stored.token() + " at epoch "
        + stored.epoch() + ", ours is epoch " + ours.epoch() + " (this execution was replaced after a timeout); "
        + action + " was not applied");
  }

  private static void commit(Connection c, PrimaryEndpoint endpoint, String action) throws SQLException {
    try {
      c.commit();
    } catch (SQLException e) {
      if (SqlErrors.isConnectionFailure(e)) {
        // The server may or may not have committed before the connection broke.
        throw new PointsmanException(ErrorCode.UNKNOWN_OUTCOME,
            action + " on " + endpoint + ": the connection failed during commit; re-read before retrying", e);
      }
      throw e;
    }
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * The locks a change on {@code where} (a primary, a shard) claims, ordered by resource as every
   * fence takes them; INVALID_ARGUMENT when none guard it. Shared with the tablet fence.
   */
  public static List<LockToken> claims(LockSet locks, String action, Object where) {
    Objects.requireNonNull(locks, "locks");
    if (locks.isEmpty()) {
      throw PointsmanException.invalidArgument(action + " on " + where
          + " must run under the locks that guard it, but none were given");
    }
    return locks.locks().stream().sorted(Comparator.comparing(MySqlFence::resource)).toList();
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), "lock_fence");
  }
}
