package io.pointsman.engine.mysql;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.names.Names;
import io.pointsman.engine.concurrent.FanOut;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops writes on a primary for real (docs/vitess-switching.md §6): after {@link #deny} returns, no client,
 * whatever route it takes to the server, can commit an INSERT, UPDATE or DELETE (REPLACE, LOAD
 * DATA and INSERT ... ON DUPLICATE KEY UPDATE included) to the covered tables, while replication
 * streams stay exempt. {@link #allow} undoes exactly what deny installed. Both are idempotent and
 * fenced with the caller's locks.
 *
 * <h2>How it holds</h2>
 * Deny installs, per table, BEFORE INSERT/UPDATE/DELETE triggers that fail the statement with
 * SQLSTATE 45000 and a message starting with {@value #DENIED_MESSAGE_PREFIX}. Triggers live in the
 * server, so they apply to every session, routed or not. Creating a trigger needs the table's
 * exclusive metadata lock, which MySQL and MariaDB grant only once every transaction that has used
 * the table has ended; statements arriving meanwhile queue behind it and then see the trigger.
 * So when the last trigger is in place, every write to the table that ever succeeded has
 * committed, and every later one fails. A transaction open across the barrier therefore either
 * commits before deny returns (deny waits for it) or fails at its next write to a covered table.
 * If such a transaction does not end within the drain timeout, deny fails with
 * DEADLINE_EXCEEDED naming the open transactions it found; triggers already created stay until
 * {@link #allow} (the compensation) or a retried deny.
 *
 * <p>Then {@code LOCK TABLES ... READ} is taken and released once on the barrier's own connection,
 * which is closed right after (so no lock can outlive the call). It repeats the drain as a check;
 * the guarantee does not rest on it. Vitess takes it twice, 100 ms apart, because its drain rests on
 * LOCK TABLES alone (its denied tables refuse new queries, not transactions already admitted); here
 * the triggers' DDL has drained the tables already, and the second cycle and its pause would only
 * add about 150 ms to the time writes are held (BENCHMARKS.md). {@link Options} brings them back.
 *
 * <h2>Exemption</h2>
 * A session is a replication stream's, and may write, when it has set the user variable
 * {@code @}{@value #STREAM_SESSION_VARIABLE} to a non-empty value ({@link #markStreamSession}), or
 * when it logged in as one of {@link Options#exemptUsers()} (default {@code vt_filtered}, the user
 * Vitess's VReplication applies with). The variable is a marker, not a security boundary: it
 * keeps misrouted application writes out, not a client that deliberately impersonates a stream.
 *
 * <h2>What it does not cover</h2>
 * DDL (TRUNCATE, DROP, ALTER, RENAME), foreign-key cascades from tables outside the scope (they do
 * not fire triggers) and, for a whole database, tables created after deny returned.
 *
 * <p>Every CREATE and DROP TRIGGER is a fenced DDL statement ({@link MySqlFence#ddl}): a holder
 * paused in the middle of a barrier whose lock a newer holder has taken over stops at its next
 * statement, and the statement in flight ends before the newer holder's fence raise. Each waits
 * for its metadata lock at most what is left of the caller's timeout.
 *
 * <h2>Replicas and failover</h2>
 * The trigger DDL goes to the binary log, so every replica of the primary gets the barrier too, in
 * the order of the writes it denies: a replica promoted while writes are denied (by a failover tool
 * that takes no Vitess lock) refuses them as the old primary did, and {@link #allow} on the new
 * primary lifts it there. Row-based replication does not fire triggers on a replica, so the barrier
 * never blocks what replicas apply. Replication streams must not replay it on their targets: a
 * stream reader skips the events {@link #isBarrierDdl} recognises (the sandbox's stream runner does;
 * Vitess's VReplication ignores DDL unless its {@code on_ddl} says otherwise). Keeping the DDL out of
 * the binlog ({@link Options#binlogDdl} false, which needs SUPER on MariaDB or SYSTEM_VARIABLES_ADMIN
 * on MySQL 8) makes the barrier this server's alone, and a failover loses it.
  */
public final class WriteBarrier {
  private static final Logger log = LoggerFactory.getLogger(WriteBarrier.class);

  /** The user variable that marks a replication stream's session. */
  public static final String STREAM_SESSION_VARIABLE = "pointsman_stream";
  /** How a denied write's error message starts; routers retry or buffer on it. */
  public static final String DENIED_MESSAGE_PREFIX = "pointsman: writes denied";
  /** The SQLSTATE of a denied write (MySQL error number 1644, ER_SIGNAL_EXCEPTION). */
  public static final String DENIED_SQLSTATE = "45000";
  private static final String DENY_LEFT = "Triggers created so far stay until allow() or a retried deny";
  private static final String ALLOW_LEFT = "Triggers not dropped yet stay until a retried allow";
  /** The longest one LOCK TABLES drain cycle waits (it only confirms what the triggers' DDL drained). */
  private static final Duration LOCK_TABLES_WAIT = Duration.ofSeconds(2);
  /** Sessions creating triggers at once on one primary; measured: four make 3000 triggers 2.3× faster than one. */
  private static final int MAX_DDL_SESSIONS = MySqlFence.DDL_SLOTS;
  /** Below this many triggers a session, another connection costs more than it saves. */
  private static final int TRIGGERS_PER_SESSION = 48;
  /** Vitess's internal operation tables (table GC, online DDL), which Vitess writes itself. */
  private static final String VITESS_INTERNAL_PREFIX = "_vt_";
  /** CREATE [DEFINER=...] TRIGGER or DROP TRIGGER [IF EXISTS] of a trigger named with our prefix. */
  private static final Pattern BARRIER_DDL = Pattern.compile(
      "\\s*(?:CREATE\\s+(?:DEFINER\\s*=\\s*\\S+\\s+)?TRIGGER|DROP\\s+TRIGGER(?:\\s+IF\\s+EXISTS)?)\\s+"
          + "(?:`[^`]*`\\s*\\.\\s*|[A-Za-z0-9_$]+\\s*\\.\\s*)?`?" + DenyTriggers.PREFIX,
      Pattern.CASE_INSENSITIVE);

  /**
   * @param exemptUsers MySQL login users whose writes pass (replication appliers)
   * @param binlogDdl whether the trigger DDL goes to the binlog, and so to replicas (default: yes, so
   *     that the barrier survives a failover; see the class comment)
   * @param lockTablesCycles how often LOCK TABLES ... READ is taken after the triggers (default 1; Vitess: 2)
   * @param lockTablesCycleDelay the pause between those cycles (Vitess: 100 ms)
   */
  public record Options(Set<String> exemptUsers, boolean binlogDdl, int lockTablesCycles, Duration lockTablesCycleDelay) {
    public static final Options DEFAULT = new Options(Set.of("vt_filtered"), true, 1, Duration.ofMillis(100));

    public Options {
      exemptUsers = Set.copyOf(exemptUsers);
      exemptUsers.forEach(DenyTriggers::checkUser);
      if (lockTablesCycles < 0) {
        throw PointsmanException.invalidArgument("lockTablesCycles must not be negative");
      }
      Objects.requireNonNull(lockTablesCycleDelay, "lockTablesCycleDelay");
    }
  }

  /**
   * What a deny or allow did.
   *
   * @param database the database
   * @param tables the tables covered
   * @param triggersChanged the triggers this call created (deny) or dropped (allow); empty when
   *     an earlier call had done it all
   * @param took how long the call took
   */
  public record Result(String database, List<String> tables, List<String> triggersChanged, Duration took) {}

  private final ConnectionPools pools;
  private final MySqlFence fence;
  private final Options options;

  public WriteBarrier(ConnectionPools pools, MySqlFence fence) {
    this(pools, fence, Options.DEFAULT);
  }

  public WriteBarrier(ConnectionPools pools, MySqlFence fence, Options options) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * Denies writes to the scope of the endpoint's database; see the class comment for the
   * guarantee. Returns once every covered table is guarded and drained.
   *
   * @param drainTimeout how long to wait in total for transactions using the tables to end
   * @throws io.pointsman.api.errors.LockLostException when the fence holds a newer token; nothing changed
   * @throws PointsmanException DEADLINE_EXCEEDED when transactions did not end in time;
   *     FAILED_PRECONDITION when a named table does not exist or cannot be named safely
   */
  public Result deny(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration drainTimeout) {
    long started = System.nanoTime();
    long deadline = started + drainTimeout.toNanos();
    String db = endpoint.dbName();
    String action = "denying writes to " + scope + " of " + db;
    fence.check(endpoint, locks, action);
    try (Connection c = pools.dedicatedConnection(endpoint)) {
      prepareSession(c, endpoint);
      List<String> tables = tablesToDeny(c, endpoint, scope);
      Map<String, String> present = BarrierCatalog.barrierTriggers(c, db);
      List<MissingTrigger> missing = new ArrayList<>();
      for (String table : tables) {
        for (DenyTriggers.Event event : DenyTriggers.Event.values()) {
          if (!present.containsKey(DenyTriggers.name(table, event))) {
            missing.add(new MissingTrigger(table, event));
          }
        }
      }
      List<String> created = createTriggers(c, endpoint, locks, missing, deadline, drainTimeout);
      drain(c, endpoint, tables, deadline);
      verify(c, endpoint, tables);
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      log.info("writes denied on {} of {} on {}: {} tables, {} triggers created, {} ms", scope, db, endpoint,
          tables.size(), created.size(), took.toMillis());
      return new Result(db, tables, created, took);
    } catch (SQLException e) {
      throw SqlErrors.translate(action + " on " + endpoint, e);
    }
  }

  /**
   * Allows writes again: drops exactly the barrier triggers on the scope (for the whole database,
   * every barrier trigger in it) and nothing else. Dropping a trigger waits for transactions using
   * its table, at most {@code timeout} in total.
   */
  public Result allow(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    String db = endpoint.dbName();
    String action = "allowing writes to " + scope + " of " + db;
    fence.check(endpoint, locks, action);
    try (Connection c = pools.dedicatedConnection(endpoint)) {
      prepareSession(c, endpoint);
      Map<String, String> ours = BarrierCatalog.barrierTriggers(c, db);
      List<String> dropped = new ArrayList<>();
      SortedSet<String> tables = new TreeSet<>();
      for (Map.Entry<String, String> t : ours.entrySet()) {
        if (scope instanceof WriteScope.Tables named && !named.names().contains(t.getValue())) {
          continue;
        }
        checkLeft(endpoint, t.getValue(), deadline, timeout, ALLOW_LEFT);
        try {
          fence.ddl(c, endpoint, locks, 0, deadline, action, DenyTriggers.dropStatement(db, t.getKey()));
        } catch (SQLException e) {
          throw lockWaitOr(e, c, endpoint, t.getValue(), timeout, ALLOW_LEFT);
        }
        dropped.add(t.getKey());
        tables.add(t.getValue());
      }
      if (scope instanceof WriteScope.Tables named) {
        tables.addAll(named.names());
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      log.info("writes allowed on {} of {} on {}: {} triggers dropped, {} ms", scope, db, endpoint, dropped.size(),
          took.toMillis());
      return new Result(db, List.copyOf(tables), dropped, took);
    } catch (SQLException e) {
      throw SqlErrors.translate(action + " on " + endpoint, e);
    }
  }

  /** The tables of the endpoint's database that have at least one barrier trigger now. */
  public SortedSet<String> deniedTables(PrimaryEndpoint endpoint) {
    try (Connection c = pools.connection(endpoint)) {
      return new TreeSet<>(BarrierCatalog.barrierTriggers(c, endpoint.dbName()).values());
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the write barrier of " + endpoint.dbName() + " on " + endpoint, e);
    }
  }

  /** Whether a failure (or one of its causes) is a write refused by a barrier. */
  public static boolean isWriteDenied(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && DENIED_SQLSTATE.equals(e.getSQLState()) && e.getMessage() != null
          && e.getMessage().startsWith(DENIED_MESSAGE_PREFIX)) {
        return true;
      }
    }
    return false;
  }

  /** Marks a session as a replication stream's, so barriers let its writes through. */
  public static void markStreamSession(Connection c, String stream) throws SQLException {
    if (stream == null || stream.isEmpty()) {
      throw PointsmanException.invalidArgument("a stream session needs a non-empty stream name");
    }
    try (PreparedStatement ps = c.prepareStatement("SET @" + STREAM_SESSION_VARIABLE + " = ?")) {
      ps.setString(1, stream);
      ps.execute();
    }
  }

  /**
   * Whether a statement read from a binary log creates or drops a barrier trigger. Stream readers
   * skip these: the barrier belongs to the primary and its replicas, never to a stream's target.
   * MariaDB and MySQL log CREATE TRIGGER with its DEFINER clause and the database qualifier.
   */
  public static boolean isBarrierDdl(String sql) {
    return sql != null && BARRIER_DDL.matcher(sql).lookingAt();
  }

  private void prepareSession(Connection c, PrimaryEndpoint endpoint) throws SQLException {
    if (options.binlogDdl()) {
      return;
    }
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION sql_log_bin = 0");
    } catch (SQLException e) {
      if (SqlErrors.code(e) == ErrorCode.FAILED_PRECONDITION) {
        throw new PointsmanException(ErrorCode.FAILED_PRECONDITION, "the write barrier on " + endpoint
            + " keeps its DDL out of the binlog, which needs SUPER (MariaDB) or SYSTEM_VARIABLES_ADMIN (MySQL 8)"
            + " for user " + pools.options().user() + "; grant it or set WriteBarrier.Options.binlogDdl: "
            + e.getMessage(), e);
      }
      throw e;
    }
  }

  private List<String> tablesToDeny(Connection c, PrimaryEndpoint endpoint, WriteScope scope) throws SQLException {
    String db = endpoint.dbName();
    SortedSet<String> base = BarrierCatalog.baseTables(c, db);
    if (scope instanceof WriteScope.Tables named) {
      SortedSet<String> missing = new TreeSet<>(named.names());
      missing.removeAll(base);
      if (!missing.isEmpty()) {
        throw PointsmanException.failedPrecondition("cannot deny writes to " + missing + ": no such base tables in "
            + db + " on " + endpoint);
      }
      return List.copyOf(named.names());
    }
    if (base.isEmpty() && !BarrierCatalog.databaseExists(c, db)) {
      throw PointsmanException.notFound("database " + db + " does not exist on " + endpoint);
    }
    List<String> tables = new ArrayList<>();
    for (String t : base) {
      if (t.startsWith(VITESS_INTERNAL_PREFIX)) {
        continue;
      }
      try {
        tables.add(Names.table(t));
      } catch (PointsmanException e) {
        // Leaving one table open would break the guarantee, so refuse the whole barrier.
        throw PointsmanException.failedPrecondition("cannot deny writes to the whole database " + db + " on "
            + endpoint + ": " + e.getMessage());
      }
    }
    return tables;
  }

  private record MissingTrigger(String table, DenyTriggers.Event event) {
    String name() {
      return DenyTriggers.name(table, event);
    }
  }

  /**
   * Creates the triggers, on several sessions at once when there are many: each CREATE TRIGGER is a
   * DDL of its own, a few milliseconds each here, and a MoveTables of a thousand tables holds writes
   * for seconds on them alone (BENCHMARKS.md, Scale); four sessions take less than half as long.
   * Returns only when every session has ended; the first failure is thrown, and stops the others.
   */
  private List<String> createTriggers(Connection c, PrimaryEndpoint endpoint, LockSet locks,
      List<MissingTrigger> missing, long deadline, Duration drainTimeout) throws SQLException {
    int sessions = (int) Math.min(MAX_DDL_SESSIONS, Math.max(1, missing.size() / TRIGGERS_PER_SESSION));
    if (sessions == 1) {
      for (MissingTrigger t : missing) {
        createTrigger(c, endpoint, locks, 0, t.table(), t.event(), deadline, drainTimeout);
      }
      return missing.stream().map(MissingTrigger::name).toList();
    }
    List<String> created = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean failed = new AtomicBoolean();
    FanOut.forEach(IntStream.range(0, sessions).boxed().toList(), slot -> {
      try (Connection session = pools.dedicatedConnection(endpoint)) {
        prepareSession(session, endpoint);
        for (MissingTrigger t : share(missing, slot, sessions)) {
          if (failed.get()) {
            return; // another session failed: the barrier fails, and what exists stays until allow()
          }
          createTrigger(session, endpoint, locks, slot, t.table(), t.event(), deadline, drainTimeout);
          created.add(t.name());
        }
      } catch (SQLException e) {
        failed.set(true);
        throw SqlErrors.translate("denying writes to " + endpoint.dbName() + " on " + endpoint, e);
      } catch (RuntimeException e) {
        failed.set(true);
        throw e;
      }
    });
    return List.copyOf(created);
  }

  /** Every {@code sessions}-th trigger from {@code index}: tables next to each other go to different sessions. */
  private static List<MissingTrigger> share(List<MissingTrigger> all, int index, int sessions) {
    List<MissingTrigger> out = new ArrayList<>();
    for (int i = index; i < all.size(); i += sessions) {
      out.add(all.get(i));
    }
    return out;
  }

  /** One trigger, as a fenced DDL statement (MySqlFence#ddl): a newer holder's fence stops it. */
  private void createTrigger(Connection c, PrimaryEndpoint endpoint, LockSet locks, int slot, String table,
      DenyTriggers.Event event, long deadline, Duration drainTimeout) throws SQLException {
    checkLeft(endpoint, table, deadline, drainTimeout, DENY_LEFT);
    try {
      fence.ddl(c, endpoint, locks, slot, deadline, "denying writes to " + table + " of " + endpoint.dbName(),
          DenyTriggers.createStatement(endpoint.dbName(), table, event, options.exemptUsers()));
    } catch (SQLException e) {
      if (e.getErrorCode() == SqlErrors.ER_TRG_ALREADY_EXISTS) {
        return; // a concurrent deny created it; verify() checks it is ours
      }
      throw lockWaitOr(e, c, endpoint, table, drainTimeout, DENY_LEFT);
    }
  }

  /**
   * Vitess's drain, repeated after the triggers: {@code LOCK TABLES ... READ} taken and released
   * {@code lockTablesCycles} times, {@code lockTablesCycleDelay} apart, each waiting until no
   * session holds a covered table for writing. The triggers' DDL has already drained the tables,
   * so this cannot weaken the barrier; and since a session that keeps its transaction open after a
   * denied write may still hold a table's metadata lock on some servers, a cycle that cannot lock
   * within its short wait is logged rather than failing a barrier that already holds.
   */
  private void drain(Connection c, PrimaryEndpoint endpoint, List<String> tables, long deadline) throws SQLException {
    if (tables.isEmpty()) {
      return;
    }
    String lock = "LOCK TABLES " + tables.stream()
        .map(t -> SqlIdentifiers.qualified(endpoint.dbName(), t) + " READ").collect(Collectors.joining(", "));
    for (int cycle = 1; cycle <= options.lockTablesCycles(); cycle++) {
      long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
      // Rounded down: the drain never waits past the caller's timeout (0: no wait at all).
      long waitSeconds = Math.max(0, Math.min(LOCK_TABLES_WAIT.toSeconds(), leftMillis / 1000));
      try (Statement st = c.createStatement()) {
        st.execute("SET SESSION lock_wait_timeout = " + waitSeconds);
        st.execute(lock);
        st.execute("UNLOCK TABLES");
      } catch (SQLException e) {
        if (e.getErrorCode() != SqlErrors.ER_LOCK_WAIT_TIMEOUT) {
          throw e;
        }
        log.warn("LOCK TABLES drain {} of {} on {} waited {} s without the lock; the barrier triggers are in place."
            + " Open transactions: {}", cycle, endpoint.dbName(), endpoint, waitSeconds, BarrierCatalog.openTransactions(c));
        return;
      }
      if (cycle < options.lockTablesCycles()) {
        pause(options.lockTablesCycleDelay());
      }
    }
  }

  private static void verify(Connection c, PrimaryEndpoint endpoint, List<String> tables) throws SQLException {
    Map<String, String> ours = BarrierCatalog.barrierTriggers(c, endpoint.dbName());
    List<String> missing = new ArrayList<>();
    for (String table : tables) {
      for (DenyTriggers.Event event : DenyTriggers.Event.values()) {
        if (!table.equals(ours.get(DenyTriggers.name(table, event)))) {
          missing.add(DenyTriggers.name(table, event));
        }
      }
    }
    if (!missing.isEmpty()) {
      throw PointsmanException.unavailable("write barrier on " + endpoint.dbName() + " of " + endpoint
          + " is incomplete after deny (removed concurrently, or a foreign trigger has our name): " + missing, null);
    }
  }

  /**
   * Fails once the deadline has passed. Otherwise the statement's own waits are bounded by what is
   * left (MySqlFence#ddl sets the session's lock_wait_timeout, rounded down).
   */
  private static void checkLeft(PrimaryEndpoint endpoint, String table, long deadline, Duration timeout, String left) {
    if (deadline - System.nanoTime() <= 0) {
      throw drainTimeout(endpoint, table, timeout, "", left);
    }
  }

  /** A lock wait timeout becomes DEADLINE_EXCEEDED naming the blockers; anything else is rethrown. */
  private static RuntimeException lockWaitOr(SQLException e, Connection c, PrimaryEndpoint endpoint, String table,
      Duration timeout, String left) throws SQLException {
    if (e.getErrorCode() == SqlErrors.ER_LOCK_WAIT_TIMEOUT) {
      return drainTimeout(endpoint, table, timeout, BarrierCatalog.openTransactions(c), left);
    }
    throw e;
  }

  private static PointsmanException drainTimeout(PrimaryEndpoint endpoint, String table, Duration timeout,
      String open, String left) {
    return new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "write barrier on " + endpoint.dbName() + " of "
        + endpoint + ": transactions using " + table + " did not end within " + timeout
        + (open.isEmpty() ? "" : "; open transactions: " + open) + ". " + left);
  }

  private static void pause(Duration delay) {
    try {
      Thread.sleep(delay.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.unavailable("interrupted while draining writes", e);
    }
  }
}
