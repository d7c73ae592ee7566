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
import java.util.Optional;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
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
 * streams stay exempt. {@link #allow} undoes exactly what {@link #prepare} and deny installed. All
 * are idempotent and fenced with the caller's locks.
 *
 * <h2>How it holds</h2>
 * The barrier is per table BEFORE INSERT/UPDATE/DELETE triggers that ask a gate
 * ({@link WriteGateRows}, a row per table in the sidecar database) and fail the statement with
 * SQLSTATE 45000 and a message starting with {@value #DENIED_MESSAGE_PREFIX} when the gate says
 * denied. Triggers live in the server, so they apply to every session, routed or not.
 *
 * <p>{@link #prepare} installs the triggers dormant (the gate says allowed), before the write
 * window: each CREATE TRIGGER is a DDL statement of a few milliseconds that waits for the table's
 * open transactions, which is what made the old cut-over grow with the table count. Creating a
 * trigger needs the table's exclusive metadata lock, granted only once every transaction that
 * used the table has ended; so once prepare has returned, every write to a covered table passes
 * a trigger, and every transaction that wrote one holds the database's drain row in share mode
 * until it ends (exempt sessions excepted).
 *
 * <p>{@link #deny} then flips the gate in one fenced transaction per primary, whatever the table
 * count. Its first statement locks the drain row exclusively, so it waits until every transaction
 * that has written a covered table has ended; a writer arriving meanwhile queues behind it (InnoDB
 * grants no shared lock past a waiting exclusive one) and, once the flip commits, reads the gate
 * with a locking read, which sees the latest committed row and not its transaction's snapshot, and
 * fails. So when deny returns, every write to the tables that ever succeeded has committed, and
 * every later one fails. A transaction open across the barrier therefore either commits before
 * deny returns (deny waits for it) or fails at its next write to a covered table. If such a
 * transaction does not end within the drain timeout, deny fails with DEADLINE_EXCEEDED naming the
 * open transactions it found, and the gate is unchanged. Deny on tables prepare has not covered
 * installs their triggers first, in the window, as the barrier always did.
 *
 * <p>{@link #open} flips the gate back and leaves the triggers dormant (the switch's
 * allowTargetWrites: one statement); {@link #allow} flips it back and removes triggers and rows
 * (Complete, Cancel); {@link #undoDeny} is deny's exact undo (the gate flipped back, the triggers
 * deny installed in the window removed, prepared ones kept) and {@link #removePrepared} prepare's
 * (only the tables its owner gave triggers to, where the gate does not deny, so it is right
 * whatever happened after it); {@link #removeDormant} removes every barrier that does not deny (a
 * switch's target at Complete). A dormant trigger costs each write to its table two locking reads
 * of cached rows: its table's and the drain row in one, then its group's (BENCHMARKS.md has the
 * rate with and without). The group ({@link WriteGateRows}) is the set of tables prepare covered:
 * a flip of that set changes its one row, so the window's flips cost the same for a thousand
 * tables as for ten.
 *
 * <p>{@code LOCK TABLES ... READ} can still be taken and released after the flip on the barrier's
 * own connection ({@link Options#lockTablesCycles}), as Vitess does: Vitess's drain rests on LOCK
 * TABLES alone (its denied tables refuse new queries, not transactions already admitted). Here
 * the gate's drain row has drained the tables already, and each cycle would only add a lock of
 * every covered table to the time writes are held, so the default is none.
 *
 * <h2>Exemption</h2>
 * A session is a replication stream's, and may write, when it has set the user variable
 * {@code @}{@value #STREAM_SESSION_VARIABLE} to a non-empty value ({@link #markStreamSession}), or
 * when it logged in as one of {@link Options#exemptUsers()} (default {@code vt_filtered}, the user
 * Vitess's VReplication applies with). Exempt sessions read no gate row, so a flip neither waits
 * for them nor holds them up. The variable is a marker, not a security boundary: it keeps
 * misrouted application writes out, not a client that deliberately impersonates a stream.
 *
 * <h2>What it does not cover</h2>
 * DDL (TRUNCATE, DROP, ALTER, RENAME), foreign-key cascades from tables outside the scope (they do
 * not fire triggers) and, for a whole database, tables created after deny returned.
 *
 * <p>Every CREATE and DROP TRIGGER is a fenced DDL statement ({@link MySqlFence#ddl}), and every
 * change of the gate a fenced transaction ({@link MySqlFence#inTransaction}): a holder paused in
 * the middle of a barrier whose lock a newer holder has taken over stops at its next statement.
 * Each waits for its locks at most what is left of the caller's timeout; a prepare's
 * statements, at most a {@link PrepareBudget}'s lock wait each.
 *
 * <h2>Replicas and failover</h2>
 * The trigger DDL and the gate's rows go to the binary log, so every replica of the primary gets
 * the barrier too, in the order of the writes it denies: a replica promoted while writes are
 * denied (by a failover tool that takes no Vitess lock) refuses them as the old primary did, and
 * {@link #allow} on the new primary lifts it there. Row-based replication does not fire triggers
 * on a replica, so the barrier never blocks what replicas apply. Replication streams must not
 * replay it on their targets: a stream reader skips the events {@link #isBarrierDdl} recognises
 * (the sandbox's stream runner does; Vitess's VReplication ignores DDL unless its {@code on_ddl}
 * says otherwise), and the gate rows are in the sidecar database, which no stream copies. Keeping
 * the DDL out of the binlog ({@link Options#binlogDdl} false, which needs SUPER on MariaDB or
 * SYSTEM_VARIABLES_ADMIN on MySQL 8) makes the triggers this server's alone, and a failover loses
 * them (the gate rows are logged still: without triggers they deny nothing).
 */
public final class WriteBarrier {
  private static final Logger log = LoggerFactory.getLogger(WriteBarrier.class);

  /** Who prepared a barrier when the caller names nobody. */
  public static final String DEFAULT_OWNER = "prepared";
  /** The user variable that marks a replication stream's session. */
  public static final String STREAM_SESSION_VARIABLE = "pointsman_stream";
  /** How a denied write's error message starts; routers retry or buffer on it. */
  public static final String DENIED_MESSAGE_PREFIX = "pointsman: writes denied";
  /** The SQLSTATE of a denied write (MySQL error number 1644, ER_SIGNAL_EXCEPTION). */
  public static final String DENIED_SQLSTATE = "45000";
  private static final String DENY_LEFT = "Triggers created so far stay, dormant, until allow() or a retried deny";
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
   * @param lockTablesCycles how often LOCK TABLES ... READ is taken after the flip (default 0: the gate's
   *     drain row has drained the tables; Vitess: 2)
   * @param lockTablesCycleDelay the pause between those cycles (Vitess: 100 ms)
   */
  public record Options(Set<String> exemptUsers, boolean binlogDdl, int lockTablesCycles, Duration lockTablesCycleDelay) {
    public static final Options DEFAULT = new Options(Set.of("vt_filtered"), true, 0, Duration.ofMillis(100));

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
  private final WriteGateRows gate;

  public WriteBarrier(ConnectionPools pools, MySqlFence fence) {
    this(pools, fence, Options.DEFAULT);
  }

  public WriteBarrier(ConnectionPools pools, MySqlFence fence, Options options) {
    this.pools = Objects.requireNonNull(pools, "pools");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.options = Objects.requireNonNull(options, "options");
    this.gate = new WriteGateRows(fence);
  }

  /**
   * Installs the barrier dormant on the scope: the gate rows (allowed) and every missing trigger.
   * Writes go on as before, at the cost of the triggers' gate reads. Run it before the write
   * window; each CREATE TRIGGER waits for its table's open transactions, at most what is left of
   * {@code timeout} in total. Tables already covered keep their gate as it is.
   * {@link #prepare(PrimaryEndpoint, WriteScope, String, LockSet, PrepareBudget)} bounds the two apart.
   *
   * @throws io.pointsman.api.errors.LockLostException when the fence holds a newer token
   * @throws PointsmanException DEADLINE_EXCEEDED when transactions did not end in time (what was
   *     created stays, dormant); FAILED_PRECONDITION when a named table does not exist
   */
  public Result prepare(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    return prepare(endpoint, scope, DEFAULT_OWNER, locks, timeout);
  }

  /**
   * {@link #prepare(PrimaryEndpoint, WriteScope, LockSet, Duration)}, naming who prepares: the
   * tables it gives triggers are marked with {@code owner}, so that
   * {@link #removePrepared} undoes exactly them (a switch's run).
   */
  public Result prepare(PrimaryEndpoint endpoint, WriteScope scope, String owner, LockSet locks, Duration timeout) {
    return prepare(endpoint, scope, owner, locks, PrepareBudget.within(timeout));
  }

  /**
   * {@link #prepare(PrimaryEndpoint, WriteScope, String, LockSet, Duration)}, where each CREATE
   * TRIGGER waits for its table's open transactions at most {@code budget.lockWait()}, and all of
   * them together take at most {@code budget.total()}: a thousand tables' statements may take
   * longer than one wait should, without any transaction in their way.
   */
  public Result prepare(PrimaryEndpoint endpoint, WriteScope scope, String owner, LockSet locks, PrepareBudget budget) {
    checkOwner(owner);
    String db = endpoint.dbName();
    String action = "preparing the write barrier on " + scope + " of " + db;
    return onSession(endpoint, locks, action, budget.total(), true, (c, w) -> {
      List<String> tables = tablesToDeny(c, endpoint, scope);
      Map<String, BarrierCatalog.Trigger> present = BarrierCatalog.barrierTriggers(c, db);
      List<String> created = install(c, endpoint, locks, tables, present, false, owner, w.deadline(), budget);
      // Seen complete now: the window's deny and open trust this instead of reading the catalog.
      CheckedTables.record(c, endpoint, fullyGated(tables, created.isEmpty() ? present
          : BarrierCatalog.barrierTriggers(c, db)), CheckedTables.tableIds(c, db));
      Duration took = w.took();
      log.info("write barrier prepared (dormant) on {} of {} on {}: {} tables, {} triggers created, {} ms", scope, db,
          endpoint, tables.size(), created.size(), took.toMillis());
      return new Result(db, tables, created, took);
    });
  }

  /**
   * Denies writes to the scope of the endpoint's database; see the class comment for the
   * guarantee. Returns once every covered table is guarded and drained. Prepared tables cost one
   * gate flip for all of them; the others get their triggers first.
   *
   * @param drainTimeout how long to wait in total for transactions using the tables to end
   * @throws io.pointsman.api.errors.LockLostException when the fence holds a newer token; nothing changed
   * @throws PointsmanException DEADLINE_EXCEEDED when transactions did not end in time;
   *     FAILED_PRECONDITION when a named table does not exist or cannot be named safely
   */
  public Result deny(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration drainTimeout) {
    String db = endpoint.dbName();
    String action = "denying writes to " + scope + " of " + db;
    if (options.lockTablesCycles() == 0) {
      Optional<Result> flipped = flipPrepared(endpoint, scope, locks, drainTimeout, true, action);
      if (flipped.isPresent()) {
        return flipped.get();
      }
    }
    return onSession(endpoint, locks, action, drainTimeout, true, (c, w) -> {
      boolean named = scope instanceof WriteScope.Tables;
      List<String> tables = scope instanceof WriteScope.Tables t ? List.copyOf(t.names())
          : tablesToDeny(c, endpoint, scope);
      // Prepared, and seen complete since under the table ids they have now: named tables are then
      // the base tables the prepare checked, so the table catalog is not read here, in the window
      // (information_schema.TABLES takes 15-25 ms for a thousand tables on MariaDB).
      boolean checked = CheckedTables.allChecked(c, endpoint, tables, CheckedTables.tableIds(c, db));
      if (!checked && named) {
        tablesToDeny(c, endpoint, scope); // refuses, by name, a table that is not a base table (now)
      }
      List<String> created = checked ? List.of()
          : install(c, endpoint, locks, tables, BarrierCatalog.barrierTriggers(c, db), true, WriteGateRows.IN_WINDOW,
              w.deadline(), PrepareBudget.within(drainTimeout));
      if (!tables.isEmpty()) {
        gate.deny(endpoint, locks, tables, left(w.deadline()), drainTimeout);
      }
      drain(c, endpoint, tables, w.deadline());
      Duration took = w.took();
      log.info("writes denied on {} of {} on {}: {} tables, {} triggers created, {} ms", scope, db, endpoint,
          tables.size(), created.size(), took.toMillis());
      return new Result(db, tables, created, took);
    });
  }

  /**
   * Lets writes through again and leaves the triggers in place, dormant: one gate flip, for the
   * write window (a switch's allowTargetWrites); {@link #allow} removes them later. Triggers of an
   * older version, which deny whatever the gate says, are dropped.
   */
  public Result open(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    String db = endpoint.dbName();
    String action = "allowing writes to " + scope + " of " + db;
    Optional<Result> flipped = flipPrepared(endpoint, scope, locks, timeout, false, action);
    if (flipped.isPresent()) {
      return flipped.get();
    }
    return onSession(endpoint, locks, action, timeout, false, (c, w) -> {
      // Tables seen with their three gated triggers under their current ids have no older,
      // unconditional ones to drop: then the catalog need not be read in the window.
      boolean checked = scope instanceof WriteScope.Tables named
          && CheckedTables.allChecked(c, endpoint, named.names(), CheckedTables.tableIds(c, db));
      Map<String, BarrierCatalog.Trigger> ours = checked ? Map.of() : BarrierCatalog.barrierTriggers(c, db);
      List<String> tables = inScope(c, endpoint, scope, ours);
      gate.allow(endpoint, locks, tables, left(w.deadline()));
      Map<String, BarrierCatalog.Trigger> ungated = triggers(ours, t -> !t.gated() && tables.contains(t.table()));
      List<String> dropped = drop(c, endpoint, locks, ungated, w.deadline(), timeout, action, false);
      Duration took = w.took();
      log.info("writes allowed on {} of {} on {} (barrier left dormant): {} tables, {} ms", scope, db, endpoint,
          tables.size(), took.toMillis());
      return new Result(db, tables, dropped, took);
    });
  }

  /**
   * Allows writes again and removes the barrier: flips the gate (writes go through at once), then
   * drops exactly the barrier triggers on the scope (for the whole database, every barrier
   * trigger in it) and nothing else, then their gate rows. Dropping a trigger waits for
   * transactions using its table, at most {@code timeout} in total.
   */
  public Result allow(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    String db = endpoint.dbName();
    String action = "allowing writes to " + scope + " of " + db;
    return onSession(endpoint, locks, action, timeout, true, (c, w) -> {
      Map<String, BarrierCatalog.Trigger> ours = BarrierCatalog.barrierTriggers(c, db);
      List<String> scoped = inScope(c, endpoint, scope, ours);
      gate.allow(endpoint, locks, scoped, left(w.deadline()));
      Map<String, BarrierCatalog.Trigger> toDrop = triggers(ours, t -> scoped.contains(t.table()));
      List<String> dropped = drop(c, endpoint, locks, toDrop, w.deadline(), timeout, action, false);
      gate.delete(endpoint, locks, scoped);
      SortedSet<String> tables = new TreeSet<>();
      toDrop.values().forEach(t -> tables.add(t.table()));
      if (scope instanceof WriteScope.Tables named) {
        tables.addAll(named.names());
      }
      Duration took = w.took();
      log.info("writes allowed on {} of {} on {}: {} triggers dropped, {} ms", scope, db, endpoint, dropped.size(),
          took.toMillis());
      return new Result(db, List.copyOf(tables), dropped, took);
    });
  }

  /**
   * The exact undo of {@link #deny}: lets writes through again, and removes the triggers deny
   * installed inside the write window (tables nobody had prepared) and triggers of the older,
   * unconditional kind; prepared triggers stay dormant for {@link #removePrepared}, and triggers
   * that were there, dormant, before stay as they were.
   */
  public Result undoDeny(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    String db = endpoint.dbName();
    String action = "allowing writes to " + scope + " of " + db;
    return onSession(endpoint, locks, action, timeout, true, (c, w) -> {
      Map<String, BarrierCatalog.Trigger> ours = BarrierCatalog.barrierTriggers(c, db);
      List<String> scoped = inScope(c, endpoint, scope, ours);
      gate.allow(endpoint, locks, scoped, left(w.deadline()));
      SortedSet<String> inWindow = WriteGateRows.preparedBy(c, endpoint, WriteGateRows.IN_WINDOW);
      Map<String, BarrierCatalog.Trigger> toDrop =
          triggers(ours, t -> scoped.contains(t.table()) && (!t.gated() || inWindow.contains(t.table())));
      List<String> dropped = drop(c, endpoint, locks, toDrop, w.deadline(), timeout, action, false);
      List<String> tables = scoped.stream().filter(inWindow::contains).toList();
      gate.delete(endpoint, locks, tables);
      Duration took = w.took();
      log.info("writes allowed on {} of {} on {}: {} triggers installed in the window dropped, {} ms", scope, db,
          endpoint, dropped.size(), took.toMillis());
      return new Result(db, scoped, dropped, took);
    });
  }

  /**
   * The undo of {@link #prepare} by {@code owner}: removes the triggers and gate rows of the tables
   * of the scope it prepared, where they do not deny. A table an open transaction still holds keeps
   * its trigger, dormant (it lets every write through; Complete or Cancel removes it), rather than
   * holding the undo up: dropping a trigger waits for the table's transactions.
   */
  public Result removePrepared(PrimaryEndpoint endpoint, WriteScope scope, String owner, LockSet locks,
      Duration timeout) {
    checkOwner(owner);
    String db = endpoint.dbName();
    String action = "removing the write barrier prepared by " + owner + " on " + scope + " of " + db;
    return onSession(endpoint, locks, action, timeout, true, (c, w) -> {
      Map<String, BarrierCatalog.Trigger> ours = BarrierCatalog.barrierTriggers(c, db);
      SortedSet<String> prepared = WriteGateRows.preparedBy(c, endpoint, owner);
      List<String> scoped = inScope(c, endpoint, scope, ours);
      Map<String, BarrierCatalog.Trigger> toDrop =
          triggers(ours, t -> t.gated() && scoped.contains(t.table()) && prepared.contains(t.table()));
      List<String> dropped = drop(c, endpoint, locks, toDrop, w.deadline(), timeout, action, true);
      SortedSet<String> left = new TreeSet<>();
      toDrop.forEach((name, t) -> {
        if (!dropped.contains(name)) {
          left.add(t.table());
        }
      });
      List<String> tables = scoped.stream().filter(t -> prepared.contains(t) && !left.contains(t)).toList();
      gate.delete(endpoint, locks, tables);
      Duration took = w.took();
      log.info("write barrier prepared by {} removed on {} of {} on {}: {} triggers dropped, {} ms{}", owner, scope, db,
          endpoint, dropped.size(), took.toMillis(), left.isEmpty() ? ""
              : "; left dormant (held by open transactions): " + left);
      return new Result(db, tables, dropped, took);
    });
  }

  /**
   * Removes the barrier from the tables of the scope whose gate does not deny: the undo of
   * {@link #prepare}, harmless whatever ran after it (a table denied since stays denied).
   */
  public Result removeDormant(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout) {
    String db = endpoint.dbName();
    String action = "removing the dormant write barrier on " + scope + " of " + db;
    return onSession(endpoint, locks, action, timeout, true, (c, w) -> {
      Map<String, BarrierCatalog.Trigger> ours = BarrierCatalog.barrierTriggers(c, db);
      SortedSet<String> denying = denying(c, endpoint, ours);
      List<String> scoped = inScope(c, endpoint, scope, ours);
      Map<String, BarrierCatalog.Trigger> toDrop =
          triggers(ours, t -> scoped.contains(t.table()) && !denying.contains(t.table()));
      List<String> dropped = drop(c, endpoint, locks, toDrop, w.deadline(), timeout, action, false);
      List<String> tables = scoped.stream().filter(t -> !denying.contains(t)).toList();
      gate.delete(endpoint, locks, tables);
      Duration took = w.took();
      log.info("dormant write barrier removed on {} of {} on {}: {} triggers dropped, {} tables left denied, {} ms",
          scope, db, endpoint, dropped.size(), denying.size(), took.toMillis());
      return new Result(db, tables, dropped, took);
    });
  }

  /** When one change of the barrier began, and by when it must be done (System.nanoTime). */
  private record Window(long started, long deadline) {
    Duration took() {
      return Duration.ofNanos(System.nanoTime() - started);
    }
  }

  /** One change of the barrier, made on a session of its own. */
  @FunctionalInterface
  private interface Change {
    Result on(Connection c, Window w) throws SQLException;
  }

  /**
   * The frame of every change: the fence checked first (open's gate flip is fenced by itself, so it
   * skips this), a dedicated session prepared for the barrier, closed after, and an SQL failure
   * named with the action.
   */
  private Result onSession(PrimaryEndpoint endpoint, LockSet locks, String action, Duration timeout,
      boolean checkFence, Change change) {
    long started = System.nanoTime();
    Window w = new Window(started, started + timeout.toNanos());
    if (checkFence) {
      fence.check(endpoint, locks, action);
    }
    try (Connection c = pools.dedicatedConnection(endpoint)) {
      prepareSession(c, endpoint);
      return change.on(c, w);
    } catch (SQLException e) {
      throw SqlErrors.translate(action + " on " + endpoint, e);
    }
  }

  /**
   * The write window's usual case: named tables whose three gated triggers a prepare saw complete
   * under the table ids they have now. Then {@link #deny} and {@link #open} change no trigger, and
   * their only change is the gate's flip, one fenced transaction that checks the locks itself: so
   * the reads are made on a pooled session, without the fresh one (a connect and a handshake,
   * several milliseconds per primary) and the separate fence check that trigger DDL needs. Empty
   * when a table is not so covered; the caller then goes the whole way, which reads again.
   */
  private Optional<Result> flipPrepared(PrimaryEndpoint endpoint, WriteScope scope, LockSet locks, Duration timeout,
      boolean deny, String action) {
    if (!(scope instanceof WriteScope.Tables named) || named.names().isEmpty()) {
      return Optional.empty();
    }
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    String db = endpoint.dbName();
    List<String> tables = List.copyOf(named.names());
    fence.ensureSchema(endpoint);
    try (Connection c = pools.connection(endpoint)) {
      if (!CheckedTables.allChecked(c, endpoint, tables, CheckedTables.tableIds(c, db))) {
        return Optional.empty();
      }
    } catch (SQLException e) {
      throw SqlErrors.translate(action + " on " + endpoint, e);
    }
    if (deny) {
      gate.deny(endpoint, locks, tables, left(deadline), timeout);
    } else {
      gate.allow(endpoint, locks, tables, left(deadline));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    log.info("writes {} on {} of {} on {} (prepared barrier, gate flip only): {} tables, {} ms",
        deny ? "denied" : "allowed", scope, db, endpoint, tables.size(), took.toMillis());
    return Optional.of(new Result(db, tables, List.of(), took));
  }

  /** Those of {@code ours} that {@code which} accepts, by name. */
  private static Map<String, BarrierCatalog.Trigger> triggers(Map<String, BarrierCatalog.Trigger> ours,
      Predicate<BarrierCatalog.Trigger> which) {
    Map<String, BarrierCatalog.Trigger> out = new TreeMap<>();
    ours.forEach((name, t) -> {
      if (which.test(t)) {
        out.put(name, t);
      }
    });
    return out;
  }

  /** The tables of the endpoint's database whose writes a barrier denies now. */
  public SortedSet<String> deniedTables(PrimaryEndpoint endpoint) {
    try (Connection c = pools.connection(endpoint)) {
      fence.ensureSchema(endpoint);
      return denying(c, endpoint, BarrierCatalog.barrierTriggers(c, endpoint.dbName()));
    } catch (SQLException e) {
      throw SqlErrors.translate("reading the write barrier of " + endpoint.dbName() + " on " + endpoint, e);
    }
  }

  /**
   * A table denies when one of its triggers is of the older, unconditional kind, or when it has
   * gated triggers and its gate row says denied.
   */
  private static SortedSet<String> denying(Connection c, PrimaryEndpoint endpoint,
      Map<String, BarrierCatalog.Trigger> ours) throws SQLException {
    SortedSet<String> deniedRows = WriteGateRows.deniedRows(c, endpoint);
    SortedSet<String> out = new TreeSet<>();
    for (BarrierCatalog.Trigger t : ours.values()) {
      if (!t.gated() || deniedRows.contains(t.table())) {
        out.add(t.table());
      }
    }
    return out;
  }

  /** The scope's tables: the named ones, or every table with a barrier trigger or a gate row. */
  private static List<String> inScope(Connection c, PrimaryEndpoint endpoint, WriteScope scope,
      Map<String, BarrierCatalog.Trigger> ours) throws SQLException {
    if (scope instanceof WriteScope.Tables named) {
      return List.copyOf(named.names());
    }
    SortedSet<String> all = new TreeSet<>(WriteGateRows.deniedRows(c, endpoint));
    ours.values().forEach(t -> all.add(t.table()));
    return List.copyOf(all);
  }

  /** Drops the given barrier triggers, each a fenced DDL statement within the deadline. */
  private List<String> drop(Connection c, PrimaryEndpoint endpoint, LockSet locks,
      Map<String, BarrierCatalog.Trigger> triggers, long deadline, Duration timeout, String action,
      boolean leaveHeld) throws SQLException {
    List<String> dropped = new ArrayList<>();
    SortedSet<String> held = new TreeSet<>();
    // Each held table costs one wait; a best-effort removal shares what is left between them.
    long perTable = leaveHeld ? Math.max(1_000_000_000L, (deadline - System.nanoTime()) / Math.max(1, triggers.size()))
        : Long.MAX_VALUE;
    // Forgotten first: a table whose triggers may be partly gone must be read from the catalog again.
    SortedSet<String> affected = new TreeSet<>();
    triggers.values().forEach(t -> affected.add(t.table()));
    CheckedTables.forget(c, endpoint, affected);
    for (Map.Entry<String, BarrierCatalog.Trigger> t : triggers.entrySet()) {
      String table = t.getValue().table();
      if (held.contains(table)) {
        continue;
      }
      if (leaveHeld && deadline - System.nanoTime() <= 0) {
        break;
      }
      checkLeft(c, endpoint, deadline, timeout, () -> dropped.size() + " of " + triggers.size() + " triggers dropped",
          ALLOW_LEFT);
      long statementDeadline = leaveHeld ? Math.min(deadline, System.nanoTime() + perTable) : deadline;
      try {
        fence.ddl(c, endpoint, locks, 0, statementDeadline, action,
            DenyTriggers.dropStatement(endpoint.dbName(), t.getKey()));
      } catch (SQLException e) {
        if (leaveHeld && e.getErrorCode() == SqlErrors.ER_LOCK_WAIT_TIMEOUT) {
          held.add(table);
          continue;
        }
        throw lockWaitOr(e, c, endpoint, table, timeout, ALLOW_LEFT);
      }
      dropped.add(t.getKey());
    }
    return dropped;
  }

  /** The tables whose three triggers are all there and gated, by the catalog read given. */
  private static List<String> fullyGated(List<String> tables, Map<String, BarrierCatalog.Trigger> present) {
    return tables.stream().filter(t -> java.util.Arrays.stream(DenyTriggers.Event.values()).allMatch(e -> {
      BarrierCatalog.Trigger found = present.get(DenyTriggers.name(t, e));
      return found != null && found.gated() && t.equals(found.table());
    })).toList();
  }

  private static void checkOwner(String owner) {
    if (owner == null || owner.isEmpty() || owner.length() > 128) {
      throw PointsmanException.invalidArgument("a barrier's owner must be 1 to 128 characters, was '" + owner + "'");
    }
  }

  /**
   * Makes every table of the list covered: its gate row (for a table without triggers yet:
   * {@code denied} or allowed) and its missing triggers. Tables with triggers of the older,
   * unconditional kind count as covered (they deny already) and get a row, so the flip finds one.
   * Returns the triggers created; checks afterwards that every one is there.
   */
  private List<String> install(Connection c, PrimaryEndpoint endpoint, LockSet locks, List<String> tables,
      Map<String, BarrierCatalog.Trigger> present, boolean denied, String preparedBy, long deadline,
      PrepareBudget budget) throws SQLException {
    SortedSet<String> withTriggers = new TreeSet<>();
    SortedSet<String> ungated = new TreeSet<>();
    present.values().forEach(t -> {
      withTriggers.add(t.table());
      if (!t.gated()) {
        ungated.add(t.table());
      }
    });
    List<MissingTrigger> missing = new ArrayList<>();
    for (String table : tables) {
      for (DenyTriggers.Event event : DenyTriggers.Event.values()) {
        if (!present.containsKey(DenyTriggers.name(table, event))) {
          missing.add(new MissingTrigger(table, event));
        }
      }
    }
    boolean oldKind = tables.stream().anyMatch(ungated::contains);
    if (missing.isEmpty() && !oldKind) {
      return List.of(); // prepared before: the rows were written with the triggers
    }
    List<String> fresh = tables.stream().filter(t -> !withTriggers.contains(t)).toList();
    List<String> kept = tables.stream().filter(withTriggers::contains).toList();
    // A prepare puts the tables it gives triggers in the group of its tables, so that the window
    // flips one row for all of them; a deny installing in the window flips rows anyway.
    gate.install(endpoint, locks, fresh, kept, denied, preparedBy, denied ? null : WriteGateRows.groupOf(tables));
    List<String> created = createTriggers(c, endpoint, locks, missing, deadline, budget);
    verify(c, endpoint, tables);
    return created;
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
      List<MissingTrigger> missing, long deadline, PrepareBudget budget) throws SQLException {
    int sessions = (int) Math.min(MAX_DDL_SESSIONS, Math.max(1, missing.size() / TRIGGERS_PER_SESSION));
    List<String> created = Collections.synchronizedList(new ArrayList<>());
    Supplier<String> progress = () -> created.size() + " of " + missing.size() + " triggers created";
    if (sessions == 1) {
      for (MissingTrigger t : missing) {
        createTrigger(c, endpoint, locks, 0, t, deadline, budget, progress);
        created.add(t.name());
      }
      return List.copyOf(created);
    }
    AtomicBoolean failed = new AtomicBoolean();
    FanOut.forEach(IntStream.range(0, sessions).boxed().toList(), slot -> {
      try (Connection session = pools.dedicatedConnection(endpoint)) {
        prepareSession(session, endpoint);
        for (MissingTrigger t : share(missing, slot, sessions)) {
          if (failed.get()) {
            return; // another session failed: the barrier fails, and what exists stays until allow()
          }
          createTrigger(session, endpoint, locks, slot, t, deadline, budget, progress);
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

  /**
   * One trigger, as a fenced DDL statement (MySqlFence#ddl): a newer holder's fence stops it. Its
   * wait for the table's transactions ends by the budget's lock wait, or by {@code deadline}, the
   * end of all the statements, when that comes first.
   */
  private void createTrigger(Connection c, PrimaryEndpoint endpoint, LockSet locks, int slot, MissingTrigger t,
      long deadline, PrepareBudget budget, Supplier<String> progress) throws SQLException {
    String table = t.table();
    checkLeft(c, endpoint, deadline, budget.total(), progress, DENY_LEFT);
    long statementDeadline = Math.min(deadline, System.nanoTime() + budget.lockWait().toNanos());
    try {
      fence.ddl(c, endpoint, locks, slot, statementDeadline, "denying writes to " + table + " of " + endpoint.dbName(),
          DenyTriggers.createStatement(endpoint.dbName(), endpoint.sidecarDb(), table, t.event(),
              options.exemptUsers()));
    } catch (SQLException e) {
      if (e.getErrorCode() == SqlErrors.ER_TRG_ALREADY_EXISTS) {
        return; // a concurrent deny created it; verify() checks it is ours
      }
      throw lockWaitOr(e, c, endpoint, table, budget.lockWait(), DENY_LEFT);
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
    Map<String, BarrierCatalog.Trigger> ours = BarrierCatalog.barrierTriggers(c, endpoint.dbName());
    List<String> missing = new ArrayList<>();
    for (String table : tables) {
      for (DenyTriggers.Event event : DenyTriggers.Event.values()) {
        BarrierCatalog.Trigger found = ours.get(DenyTriggers.name(table, event));
        if (found == null || !table.equals(found.table())) {
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
   * left (MySqlFence#ddl sets the session's lock_wait_timeout, rounded down). Passed between two
   * statements, the time went to the statements themselves (a thousand tables' triggers on a slow
   * server), or to waits that did end: the failure says how far it got, rather than that some
   * transaction did not end (lockWaitOr says that, when one did not). The transactions open on the
   * server are listed for whoever looks further, not taken for blockers: a busy primary always has
   * some, on other tables (a CI run's message blamed another test's).
   */
  private static void checkLeft(Connection c, PrimaryEndpoint endpoint, long deadline, Duration timeout,
      Supplier<String> progress, String left) {
    if (deadline - System.nanoTime() <= 0) {
      String open = BarrierCatalog.openTransactions(c);
      throw new PointsmanException(ErrorCode.DEADLINE_EXCEEDED, "write barrier on " + endpoint.dbName() + " of "
          + endpoint + ": its statements did not finish within " + timeout + " (" + progress.get()
          + "; no statement waited out its lock wait, so the statements themselves, or waits that ended, took"
          + " the time: a longer timeout gives them more; transactions open on the server now: "
          + (open.isEmpty() ? "none" : open) + "). " + left);
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

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
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
