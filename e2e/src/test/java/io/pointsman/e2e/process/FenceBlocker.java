package io.pointsman.e2e.process;

import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SqlIdentifiers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Holds the row of one lock's fence in a primary's {@code _vt.lock_fence}, so a worker's next
 * fenced change on that primary waits for it inside MySQL: a point in the switch where the worker
 * is provably stuck, seen from outside in the primary's session list, without hooks in
 * the worker. Every guarded change claims the fence rows of all its locks in resource order, so
 * holding the smallest resource stops it at its very first statement, before it changed anything.
 *
 * <p>{@link #passOne()} lets exactly one waiting transaction through and holds the row again
 * for the next: a second connection queues behind the waiting worker before the first lets go, and
 * InnoDB grants a record's waiters in the order they came.
 */
final class FenceBlocker implements AutoCloseable {
  private static final int WAITING_MS = 300;
  private final ProcessWorld world;
  private final String keyspace;
  private final String shard;
  private final PrimaryEndpoint endpoint;
  private final String table;
  private final byte[] resource;
  private final ExecutorService queue = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "fence-blocker");
    t.setDaemon(true);
    return t;
  });
  private final Set<Long> ours = ConcurrentHashMap.newKeySet();
  private Holder holder;

  private FenceBlocker(ProcessWorld world, String keyspace, String shard, String resource) {
    this.world = world;
    this.keyspace = keyspace;
    this.shard = shard;
    this.endpoint = world.primary(keyspace, shard);
    this.table = SqlIdentifiers.qualified(endpoint.sidecarDb(), "lock_fence");
    this.resource = resource.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Holds, on {@code keyspace/shard}'s primary, the fence row a switch of the world's workflow
   * claims first (its lock resources sorted, as the fence sorts them).
   */
  static FenceBlocker hold(ProcessWorld world, String keyspace, String shard) throws SQLException {
    String first = world.lockDirs().stream().sorted().findFirst().orElseThrow();
    FenceBlocker b = new FenceBlocker(world, keyspace, shard, first);
    try {
      b.ensureRow();
      b.holder = b.lockRow();
      b.holder.locked.orTimeout(30, TimeUnit.SECONDS).join();
      return b;
    } catch (RuntimeException | SQLException e) {
      b.close();
      throw e;
    }
  }

  /** Whether a transaction other than ours waits for a fence row on this primary now. */
  boolean someoneWaits() throws SQLException {
    return waiting(false) > 0;
  }

  /**
   * Lets the one transaction waiting now through, then holds the row again, so that the next
   * guarded change on this primary waits. Returns once we hold it again, that is once the
   * transaction let through has ended.
   */
  void passOne() throws SQLException {
    int others = waiting(false);
    if (others != 1) {
      throw new IllegalStateException("passOne needs exactly one waiting transaction, there are " + others);
    }
    Holder next = lockRow();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (waiting(true) < 2) {
      if (System.nanoTime() > deadline) {
        next.release();
        throw new IllegalStateException("our second connection did not queue behind the waiting transaction");
      }
      pause();
    }
    holder.release();
    holder = next;
    next.locked.orTimeout(40, TimeUnit.SECONDS).join();
  }

  /** Lets everything through; idempotent. */
  void release() {
    if (holder != null) {
      holder.release();
      holder = null;
    }
  }

  @Override
  public void close() {
    release();
    queue.shutdownNow();
  }

  /** A token of 0 never wins against a real one: the row is only there to be locked. */
  private void ensureRow() throws SQLException {
    // creates the sidecar table when no fenced change has run on this primary yet
    world.services.fence().highestToken(endpoint, new String(resource, StandardCharsets.UTF_8));
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
        "INSERT IGNORE INTO " + table + " (resource, token, updated_at) VALUES (?, 0, NOW(6))")) {
      ps.setBytes(1, resource);
      ps.executeUpdate();
    }
  }

  /** A connection whose transaction asks for the row lock on the queue thread, where it may wait. */
  private Holder lockRow() throws SQLException {
    Connection c = connect();
    long id;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      id = rs.getLong(1);
    }
    c.setAutoCommit(false);
    Holder h = new Holder(c, id);
    ours.add(id);
    queue.execute(() -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE")) {
        ps.setBytes(1, resource);
        ps.executeQuery().close();
        h.locked.complete(null);
      } catch (SQLException | RuntimeException e) {
        h.locked.completeExceptionally(e);
      }
    });
    return h;
  }

  /**
   * Statements on the fence that have run for over {@value #WAITING_MS} ms, which only one waiting
   * for a row lock does; ours among them only when asked. The session list, not INNODB_TRX: MariaDB
   * leaves a transaction begun by autocommit=0 (as Connector/J's are) out of INNODB_TRX while it waits.
   */
  private int waiting(boolean countOurs) throws SQLException {
    int n = 0;
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND TIME_MS > " + WAITING_MS
            + " AND INFO LIKE '%lock_fence%' AND ID <> CONNECTION_ID()")) {
      while (rs.next()) {
        if (countOurs || !ours.contains(rs.getLong(1))) {
          n++;
        }
      }
    }
    return n;
  }

  /** What the primary's sessions and InnoDB transactions are doing now, and the fence rows: for failure messages. */
  String diagnostics() {
    StringBuilder b = new StringBuilder("fence row held on " + keyspace + "/" + shard + " by connections " + ours);
    for (String sql : new String[] {
        "SELECT ID, USER, COMMAND, TIME, STATE, LEFT(INFO, 200) FROM information_schema.PROCESSLIST"
            + " WHERE COMMAND <> 'Sleep'",
        "SELECT trx_mysql_thread_id, trx_state, LEFT(trx_query, 200) FROM information_schema.INNODB_TRX",
        "SELECT resource, token FROM " + table}) {
      b.append("\n").append(sql);
      try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          b.append("\n  ");
          for (int i = 1; i <= n; i++) {
            byte[] v = rs.getBytes(i);
            b.append(v == null ? "NULL" : new String(v, StandardCharsets.UTF_8)).append(" | ");
          }
        }
      } catch (SQLException e) {
        b.append("\n  failed: ").append(e.getMessage());
      }
    }
    return b.toString();
  }

  private Connection connect() {
    return world.sandbox.connect(keyspace, shard);
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One connection holding (or queued for) the row. */
  private final class Holder {
    final Connection connection;
    final long connectionId;
    final CompletableFuture<Void> locked = new CompletableFuture<>();

    Holder(Connection connection, long connectionId) {
      this.connection = connection;
      this.connectionId = connectionId;
    }

    void release() {
      if (!locked.isDone()) {
        // still queued: the connection is busy in its statement, so end it from outside
        try (Connection c = connect(); Statement st = c.createStatement()) {
          st.execute("KILL CONNECTION " + connectionId);
        } catch (SQLException ignored) {
          // it ended meanwhile
        }
      } else {
        try {
          connection.rollback();
        } catch (SQLException ignored) {
          // closing below ends the transaction anyway
        }
      }
      try {
        connection.close();
      } catch (SQLException ignored) {
        // a killed or broken connection holds nothing
      }
      ours.remove(connectionId);
    }
  }
}
