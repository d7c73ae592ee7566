package io.pointsman.e2e.vitess;

import io.pointsman.engine.primary.FencePort;
import io.pointsman.engine.primary.ShardRef;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Holds one lock resource's row of {@code _pointsman.lock_fence} in a shard primary's MariaDB, straight
 * on the tablet's MySQL port, with {@code SELECT ... FOR UPDATE} in an open transaction: pointsman's
 * next fenced change on that shard ({@code TabletFence}: an insert-on-duplicate-key through
 * vttablet's ExecuteFetchAsDba) then waits inside MariaDB, a point in the switch seen from outside in
 * the server's session list, with no hook in the worker.
 *
 * <p>The worker's raise runs under vttablet's ExecuteFetchAsDba with the client's 30 s deadline, so a
 * hold must end (kill, {@link #passOne}, close) well within that.
 *
 * <p>{@link #passOne()} lets the one waiting statement through and holds the row again for the next:
 * a second connection queues behind the waiting statement before the first lets go, and InnoDB grants
 * a record's waiters in the order they came.
 */
final class TabletFenceBlocker implements AutoCloseable {
  /** A fence statement running this long waits for a row lock: it takes a millisecond otherwise. */
  private static final int WAITING_MS = 300;
  private static final String TABLE = "_pointsman.lock_fence";

  private final String jdbcUrl;
  private final String password;
  private final String where;
  private final byte[] resource;
  private final ExecutorService queue = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "tablet-fence-blocker");
    t.setDaemon(true);
    return t;
  });
  private final Set<Long> ours = ConcurrentHashMap.newKeySet();
  private Holder holder;

  private TabletFenceBlocker(VitessCluster.Tablet tablet, String password, String resource) {
    this.jdbcUrl = "jdbc:mysql://127.0.0.1:" + tablet.mysqlPort()
        + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=10000&socketTimeout=60000";
    this.password = password;
    this.where = tablet.alias() + " (" + tablet.keyspace() + "/" + tablet.shard() + ")";
    this.resource = resource.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Holds {@code resource}'s fence row on {@code tablet}'s MariaDB. The table is made by pointsman's
   * own fence ({@code fence.highestToken}, through the tablet) when no fenced change has run there
   * yet; the row, with token 0 (below every real token), here.
   */
  static TabletFenceBlocker hold(VitessCluster cluster, VitessCluster.Tablet tablet, FencePort fence, String resource)
      throws SQLException {
    fence.highestToken(new ShardRef(tablet.keyspace(), tablet.shard()), resource);
    TabletFenceBlocker b = new TabletFenceBlocker(tablet, cluster.env("POINTSMAN_VITESS_DB_PASSWORD"), resource);
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

  /** Whether a statement other than ours has waited on a fence row here for a while. */
  boolean someoneWaits() throws SQLException {
    return waiting(false) > 0;
  }

  /** Lets the one waiting statement through, and returns once we hold the row again. */
  void passOne() throws SQLException {
    int others = waiting(false);
    if (others != 1) {
      throw new IllegalStateException("passOne needs exactly one waiting statement on " + where + ", there are "
          + others);
    }
    Holder next = lockRow();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (waiting(true) < 2) {
      if (System.nanoTime() > deadline) {
        next.release();
        throw new IllegalStateException("our second connection did not queue behind the waiting statement");
      }
      pause();
    }
    holder.release();
    holder = next;
    next.locked.orTimeout(25, TimeUnit.SECONDS).join();
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

  private void ensureRow() throws SQLException {
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
        "INSERT IGNORE INTO " + TABLE + " (resource, token, updated_at) VALUES (?, 0, NOW(6))")) {
      ps.setBytes(1, resource);
      ps.executeUpdate();
    }
  }

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
      try (PreparedStatement ps = c.prepareStatement("SELECT token FROM " + TABLE + " WHERE resource = ? FOR UPDATE")) {
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
   * Statements naming the fence table that have run longer than {@value #WAITING_MS} ms (vttablet's
   * sessions run as vt_dba too, so the session list, not the user, tells them apart from ours).
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

  /** The sessions, InnoDB transactions and fence rows of this MariaDB now: for failure messages. */
  String diagnostics() {
    StringBuilder b = new StringBuilder("fence row held on " + where + " by connections " + ours);
    for (String sql : new String[] {
        "SELECT ID, USER, COMMAND, TIME, STATE, LEFT(INFO, 200) FROM information_schema.PROCESSLIST"
            + " WHERE COMMAND <> 'Sleep'",
        "SELECT trx_mysql_thread_id, trx_state, LEFT(trx_query, 200) FROM information_schema.INNODB_TRX",
        "SELECT resource, token FROM " + TABLE}) {
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

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, "vt_dba", password);
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
