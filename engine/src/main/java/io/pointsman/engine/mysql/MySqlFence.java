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
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing of MySQL changes with the etcd locks they are made under (docs/locks.md §8). A lease
 * can expire while its holder is paused; the holder cannot know, but MySQL can: every lock's
 * create revision increases with every acquisition, and {@code <sidecar>.lock_fence} keeps, per
 * lock, the highest one any change on this server was made under.
 *
 * <p>A guarded change runs in one transaction that first raises each lock's row to our token
 * (only upwards) and reads it back under a row lock; if a row holds a higher token, a newer
 * holder has already written here, and the transaction rolls back with {@link LockLostException}
 * having changed nothing. The row locks are held until commit, so a newer holder's check waits
 * for an older holder's change in flight and then wins.
 *
 * <p>The fence is kept per lock resource (the lock's directory, e.g.
 * {@code /vitess/global/keyspaces/customer}), not per database: two workflows that hold different
 * locks may both legitimately change one primary, and only a newer holder of the same lock may
 * fence an older one out. Rows are claimed in resource order so concurrent claims cannot deadlock.
 */
public final class MySqlFence {
  private static final Logger log = LoggerFactory.getLogger(MySqlFence.class);
  private static final int MAX_RESOURCE_BYTES = 512;
  private static final int DEADLOCK_ATTEMPTS = 3;
  private static final String LOCKS_DIR = "/locks/";

  private final ConnectionPools pools;
  private final SidecarSchema schema;

  public MySqlFence(ConnectionPools pools, SidecarSchema schema) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.schema = Objects.requireNonNull(schema, "schema");
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
        return attempt(endpoint, claims, action, work);
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

  private <T> T attempt(PrimaryEndpoint endpoint, List<LockToken> claims, String action, SqlWork<T> work)
      throws SQLException {
    try (Connection c = pools.connection(endpoint)) {
      c.setAutoCommit(false);
      try {
        for (LockToken lock : claims) {
          claim(c, endpoint, lock, action);
        }
        T result = work.run(c);
        commit(c, endpoint, action);
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
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

  private static void claim(Connection c, PrimaryEndpoint endpoint, LockToken lock, String action)
      throws SQLException {
    String resource = resource(lock);
    byte[] resourceBytes = resource.getBytes(StandardCharsets.UTF_8);
    long ours = lock.fencingToken();
    // Portable upsert: no VALUES() (deprecated in MySQL 8) and no row alias (unknown to MariaDB).
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table(endpoint)
        + " (resource, token, updated_at) VALUES (?, ?, NOW(6))"
        + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?), updated_at = NOW(6)")) {
      ps.setBytes(1, resourceBytes);
      ps.setLong(2, ours);
      ps.setLong(3, ours);
      ps.executeUpdate();
    }
    long stored;
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT token FROM " + table(endpoint) + " WHERE resource = ? FOR UPDATE")) {
      ps.setBytes(1, resourceBytes);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw PointsmanException.internal("fence row " + resource + " vanished on " + endpoint, null);
        }
        stored = rs.getLong(1);
      }
    }
    if (stored > ours) {
      throw new LockLostException(lock.key(), "lock on " + lock.resource() + " was taken over: the fence "
          + resource + " on " + endpoint + " holds token " + stored + ", ours is " + ours
          + "; " + action + " was not applied");
    }
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

  private static List<LockToken> claims(LockSet locks, String action, PrimaryEndpoint endpoint) {
    Objects.requireNonNull(locks, "locks");
    if (locks.isEmpty()) {
      throw PointsmanException.invalidArgument(action + " on " + endpoint
          + " must run under the locks that guard it, but none were given");
    }
    return locks.locks().stream().sorted(Comparator.comparing(MySqlFence::resource)).toList();
  }

  private static String table(PrimaryEndpoint endpoint) {
    return SqlIdentifiers.qualified(endpoint.sidecarDb(), "lock_fence");
  }
}
