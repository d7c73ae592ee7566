package io.pointsman.e2e;

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
 * Holds one lock resource's row of a fence table in a primary's MySQL with {@code SELECT ... FOR
 * UPDATE} in an open transaction, so that a worker's next fenced change there waits for it inside
 * MySQL: a point in the switch where the worker is provably stuck, seen from outside in the server's
 * session list, with no hook in the worker. The sandbox's fence ({@code _vt.lock_fence}, written
 * directly) and the tablet fence on real Vitess ({@code _pointsman.lock_fence}, written through
 * vttablet) are both held this way.
 *
 * <p>{@link #passOne()} lets exactly one waiting statement through and holds the row again for the
 * next: a second connection queues behind the waiting one before the first lets go, and InnoDB
 * grants a record's waiters in the order they came.
 */
public class FenceRowHold implements AutoCloseable {
  /** A fence statement running this long waits for a row lock: it takes a millisecond otherwise. */
  private static final int WAITING_MS = 300;

  /** Opens a connection to the primary's MySQL with rights on the fence table. */
  @FunctionalInterface
  public interface Connector {
    Connection connect() throws SQLException;
  }

  private final String where;
  private final String table;
  private final byte[] resource;
  private final Connector connector;
  private final ExecutorService queue = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "fence-row-hold");
    t.setDaemon(true);
    return t;
  });
  private final Set<Long> ours = ConcurrentHashMap.newKeySet();
  private Holder holder;

  /**
   * @param where the primary, for messages
   * @param table the fence table, database-qualified
   */
  protected FenceRowHold(String where, String table, String resource, Connector connector) {
    this.where = where;
    this.table = table;
    this.resource = resource.getBytes(StandardCharsets.UTF_8);
    this.connector = connector;
  }

  /**
   * Puts the row there (token 0, below every real token: it is only there to be locked) and holds
   * it; the table must exist. Closes itself when that fails.
   */
  protected final void start() throws SQLException {
    try {
      try (Connection c = connector.connect(); PreparedStatement ps = c.prepareStatement(
          "INSERT IGNORE INTO " + table + " (resource, token, updated_at) VALUES (?, 0, NOW(6))")) {
        ps.setBytes(1, resource);
        ps.executeUpdate();
      }
      holder = lockRow();
      holder.locked.orTimeout(30, TimeUnit.SECONDS).join();
    } catch (RuntimeException | SQLException e) {
      close();
      throw e;
    }
  }

  /** Whether a statement other than ours waits for a fence row on this primary now. */
  public boolean someoneWaits() throws SQLException {
    return waiting(false) > 0;
  }

  /**
   * Lets the one statement waiting now through, then holds the row again, so that the next fenced
   * change on this primary waits. Returns once we hold it again, that is once the statement let
   * through has ended.
   */
  public void passOne() throws SQLException {
    int others = waiting(false);
    if (others != 1) {
      throw new IllegalStateException("passOne needs exactly one waiting statement on " + where + ", there are "
          + others);
    }
    Holder next = lockRow();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (waiting(true) < 2) {
      if (System.nanoTime() > deadline) {
        next.release();
        throw new IllegalStateException("our second connection did not queue behind the waiting statement on "
            + where);
      }
      pause();
    }
    holder.release();
    holder = next;
    next.locked.orTimeout(40, TimeUnit.SECONDS).join();
  }

  /** Lets everything through; idempotent. */
  public void release() {
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

  /** A connection whose transaction asks for the row lock on the queue thread, where it may wait. */
  private Holder lockRow() throws SQLException {
    Connection c = connector.connect();
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
   * leaves a transaction begun by autocommit=0 (as Connector/J's are) out of INNODB_TRX while it
   * waits, and vttablet's sessions run as the same user as ours.
   */
  private int waiting(boolean countOurs) throws SQLException {
    int n = 0;
    try (Connection c = connector.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
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
  public String diagnostics() {
    StringBuilder b = new StringBuilder("fence row held on " + where + " by connections " + ours);
    for (String sql : new String[] {
        "SELECT ID, USER, COMMAND, TIME, STATE, LEFT(INFO, 200) FROM information_schema.PROCESSLIST"
            + " WHERE COMMAND <> 'Sleep'",
        "SELECT trx_mysql_thread_id, trx_state, LEFT(trx_query, 200) FROM information_schema.INNODB_TRX",
        "SELECT resource, token FROM " + table}) {
      b.append("\n").append(sql);
      try (Connection c = connector.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
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
        // still queued: its connection is busy in the statement, so end it from outside
        try (Connection c = connector.connect(); Statement st = c.createStatement()) {
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
