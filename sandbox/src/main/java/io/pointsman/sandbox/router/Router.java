package io.pointsman.sandbox.router;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.model.TabletType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's vtgate: follows routing rules, shard records, SrvKeyspace and SrvVSchema in etcd and
 * sends each statement to the primary that serves its table and sharding key now.
 *
 * <p>Like vtgate it buffers instead of failing while traffic is being switched. A statement that
 * the topology holds back (table denied on the shard, query service disabled, primary not serving)
 * is not sent; one that the primary refuses (pointsman's write barrier, SQLSTATE 45000 "... denied
 * ...", or a read-only server) was not applied. Either way it waits for the next topology change
 * and is routed afresh, until the buffer window, counted from its first attempt, runs out; then it
 * fails with {@link ErrorCode#DEADLINE_EXCEEDED} naming table, shard and reason. A connection that
 * breaks after sending leaves the outcome unknown: that is reported, never retried.
 *
 * <p>Thread-safe. Close it to stop its watches and connection pools.
 */
public final class Router implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Router.class);

  private final RouterOptions options;
  private final SnapshotBoard board;
  private final TopologyFollower follower;
  private final RouteResolver resolver = new RouteResolver();
  private final ShardPools pools;
  private final AtomicInteger buffered = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();

  private Router(RouterOptions options) {
    this.options = options;
    this.board = new SnapshotBoard(RoutingSnapshot.empty(options.cell(), options.store().keys()));
    this.follower = new TopologyFollower(options.store(), options.cell(), board);
    this.pools = new ShardPools(options);
  }

  /** Starts following the topology; statements sent before it is read are buffered. */
  public static Router start(RouterOptions options) {
    Router r = new Router(Objects.requireNonNull(options, "options"));
    r.follower.start();
    log.info("router started: {}", options);
    return r;
  }

  /**
   * Sends a write to the primary that serves its table and sharding key, buffering across
   * topology changes as described on the class.
   *
   * @throws RouterException when it could not be routed, was held for the whole buffer window, was
   *     rejected by MySQL, or its outcome is unknown; the code tells which
   */
  public WriteResult execute(Write write) {
    return run(write, (ps, target) -> ps.executeLargeUpdate());
  }

  /**
   * Runs a read and maps every row. It is routed and buffered exactly like a write, for its tablet
   * type.
   */
  public <T> List<T> query(Read read, RowMapper<T> mapper) {
    Objects.requireNonNull(mapper, "mapper");
    List<T> rows = new ArrayList<>();
    run(read, (ps, target) -> {
      rows.clear(); // a refused attempt returns no rows, but keep a retry from ever doubling them
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
      }
      return rows.size();
    });
    return rows;
  }

  /**
   * Where a statement for this table, tablet type and sharding key would go now, without sending or
   * waiting.
   *
   * @throws RouterException {@link ErrorCode#UNAVAILABLE} naming the reason when the topology holds
   *     such statements back now, or the routing error
   */
  public Target resolve(String table, TabletType tabletType, long shardingKey) {
    Read probe = Read.of(table, tabletType, shardingKey, "-");
    Route route = resolver.resolve(board.current(), probe);
    if (route instanceof Route.Hold hold) {
      throw new RouterException(ErrorCode.UNAVAILABLE, table, hold.keyspace(), hold.shard(),
          probe.describe() + " is held: " + hold.reason(), null);
    }
    return ((Route.Serve) route).target();
  }

  /** A number that grows with every topology change the router has seen. */
  public long topologyVersion() {
    return board.current().version();
  }

  /**
   * Waits until the router has read every record it follows at least once.
   *
   * @return false when the timeout passed first
   */
  public boolean awaitTopology(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RoutingSnapshot s = board.current();
    while (!s.settled()) {
      RoutingSnapshot next = board.awaitNewer(s.version(), deadline);
      if (next.version() == s.version()) {
        return false;
      }
      s = next;
    }
    return true;
  }

  /** How many statements are waiting in the buffer right now. */
  public int bufferedNow() {
    return buffered.get();
  }

  public RouterOptions options() {
    return options;
  }

  @FunctionalInterface
  private interface Call {
    long apply(PreparedStatement ps, Target target) throws SQLException;
  }

  private WriteResult run(RoutedStatement st, Call call) {
    if (closed.get()) {
      throw RouterException.of(ErrorCode.UNAVAILABLE, st.table(), st.describe() + ": router closed");
    }
    long start = System.nanoTime();
    long deadline = start + options.bufferWindow().toNanos();
    long heldNanos = 0;
    int attempts = 0;
    boolean inBuffer = false;
    RoutingSnapshot snap = board.current();
    try {
      while (true) {
        Route.Hold hold;
        Route route = resolver.resolve(snap, st);
        if (route instanceof Route.Serve serve) {
          attempts++;
          Target target = serve.target();
          try {
            long count = send(st, target, call);
            return new WriteResult(count, target, attempts, Duration.ofNanos(heldNanos));
          } catch (SQLException e) {
            switch (SqlFailure.classify(e)) {
              case REFUSED:
                hold = new Route.Hold(target.keyspace(), target.shard(), "the primary of " + target.keyspaceShard()
                    + " refused it: " + e.getMessage());
                break;
              case UNKNOWN_OUTCOME:
                throw failure(ErrorCode.UNKNOWN_OUTCOME, st, target.keyspace(), target.shard(),
                    "connection to the primary of " + target.keyspaceShard() + " failed after sending; "
                        + "the statement may or may not have been applied: " + e.getMessage(), e);
              default:
                throw failure(ErrorCode.FAILED_PRECONDITION, st, target.keyspace(), target.shard(),
                    "rejected by the primary of " + target.keyspaceShard() + " (SQLSTATE " + e.getSQLState()
                        + ", error " + e.getErrorCode() + "): " + e.getMessage(), e);
            }
          } catch (NotSent e) {
            throw failure(ErrorCode.UNAVAILABLE, st, target.keyspace(), target.shard(),
                "no connection to the primary of " + target.keyspaceShard() + " at " + target.host() + ":"
                    + target.port() + " (not sent): " + e.getCause().getMessage(), e.getCause());
          }
        } else {
          hold = (Route.Hold) route;
        }

        if (!inBuffer) {
          if (buffered.incrementAndGet() > options.bufferSize()) {
            buffered.decrementAndGet();
            throw failure(ErrorCode.UNAVAILABLE, st, hold.keyspace(), hold.shard(), "buffer full ("
                + options.bufferSize() + " statements waiting); " + hold.reason(), null);
          }
          inBuffer = true;
          log.debug("{} buffered: {}", st.describe(), hold.reason());
        }
        long heldSince = System.nanoTime();
        // Checked before waiting too: a topology that keeps changing must not keep a statement
        // beyond its window one retry at a time.
        RoutingSnapshot next = heldSince - deadline >= 0 ? snap : board.awaitNewer(snap.version(), deadline);
        heldNanos += System.nanoTime() - heldSince;
        if (board.closed()) {
          throw failure(ErrorCode.UNAVAILABLE, st, hold.keyspace(), hold.shard(),
              "router closed while buffered (not applied)", null);
        }
        if (next.version() == snap.version()) {
          throw failure(ErrorCode.DEADLINE_EXCEEDED, st, hold.keyspace(), hold.shard(), "held for the buffer window ("
              + options.bufferWindow().toMillis() + " ms) without the topology letting it through"
              + (hold.shard() != null ? " on " + hold.keyspace() + "/" + hold.shard() : "") + "; last reason: "
              + hold.reason(), null);
        }
        snap = next;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure(ErrorCode.UNAVAILABLE, st, null, null, "interrupted while buffered (not applied)", e);
    } finally {
      if (inBuffer) {
        buffered.decrementAndGet();
      }
    }
  }

  private long send(RoutedStatement st, Target target, Call call) throws SQLException, NotSent {
    Connection c;
    try {
      c = pools.connect(target);
    } catch (SQLException e) {
      throw new NotSent(e);
    }
    try (c; PreparedStatement ps = c.prepareStatement(st.sql())) {
      ps.setQueryTimeout((int) Math.max(1, options.statementTimeout().toSeconds()));
      List<Object> params = st.params();
      for (int i = 0; i < params.size(); i++) {
        ps.setObject(i + 1, params.get(i));
      }
      return call.apply(ps, target);
    }
  }

  private static RouterException failure(
      ErrorCode code, RoutedStatement st, String keyspace, String shard, String message, Throwable cause) {
    return new RouterException(code, st.table(), keyspace, shard, st.describe() + ": " + message, cause);
  }

  /** Stops following the topology, fails statements still buffered, and closes the pools. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      board.close();
      follower.close();
      pools.close();
      log.info("router of cell {} closed", options.cell());
    }
  }

  /** Getting a connection failed, so nothing was sent. */
  private static final class NotSent extends Exception {
    private static final long serialVersionUID = 1L;

    NotSent(SQLException cause) {
      super(cause);
    }
  }
}
