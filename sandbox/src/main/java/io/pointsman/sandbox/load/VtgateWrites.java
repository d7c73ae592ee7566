package io.pointsman.sandbox.load;

import io.pointsman.sandbox.router.Write;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes through a real vtgate's MySQL port (no authentication, no default keyspace: vtgate routes
 * each table by its routing rules, as for an application). Each writer thread keeps a connection of
 * its own; a connection whose write failed is dropped, so that the next write does not inherit a
 * broken session. A write is never retried: a failure is the load's to record, with vtgate's own
 * message ({@link #failureMessage}).
 */
public final class VtgateWrites implements WriteTarget, AutoCloseable {
  private final String url;
  private final Duration longestAnswer;
  private final Map<Thread, Connection> connections = new ConcurrentHashMap<>();
  /** The connections a write is under way on: closing one would wait for its answer. */
  private final Set<Connection> busy = ConcurrentHashMap.newKeySet();

  /**
   * @param longestAnswer vtgate's {@code --buffer-max-failover-duration} plus a statement's time:
   *     how long a write may be held during a switch
   */
  public VtgateWrites(String host, int port, Duration longestAnswer) {
    this.url = "jdbc:mysql://" + Objects.requireNonNull(host, "host") + ":" + port
        + "/?sslMode=DISABLED&connectTimeout=10000&socketTimeout=" + longestAnswer.plusSeconds(10).toMillis();
    this.longestAnswer = Objects.requireNonNull(longestAnswer, "longestAnswer");
  }

  @Override
  public void send(Write write) {
    Connection c = null;
    try {
      c = connection();
      busy.add(c);
      try (PreparedStatement ps = c.prepareStatement(write.sql())) {
        List<Object> params = write.params();
        for (int i = 0; i < params.size(); i++) {
          ps.setObject(i + 1, params.get(i));
        }
        ps.executeUpdate();
      }
    } catch (SQLException e) {
      drop(c);
      throw new IllegalStateException("vtgate refused write of key " + write.shardingKey() + ": " + e.getMessage(), e);
    } finally {
      if (c != null) {
        busy.remove(c);
      }
    }
  }

  /** vtgate's (or the driver's) own message: the key is in the load's record already. */
  @Override
  public String failureMessage(RuntimeException e) {
    return e.getCause() instanceof SQLException sql ? String.valueOf(sql.getMessage()) : e.toString();
  }

  @Override
  public Duration longestAnswer() {
    return longestAnswer;
  }

  private Connection connection() throws SQLException {
    Connection c = connections.get(Thread.currentThread());
    if (c == null) {
      c = DriverManager.getConnection(url, "load", "");
      connections.put(Thread.currentThread(), c);
    }
    return c;
  }

  private void drop(Connection c) {
    connections.remove(Thread.currentThread());
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // a broken connection; it is gone either way
      }
    }
  }

  /**
   * Closes every connection; one a write is still held on (the load gave up on its answer) is
   * aborted, since closing it would wait for that answer.
   */
  @Override
  public void close() {
    connections.values().forEach(c -> {
      try {
        if (busy.contains(c)) {
          c.abort(Runnable::run);
        } else {
          c.close();
        }
      } catch (SQLException ignored) {
        // closing at the end of the load; nothing to do about it
      }
    });
    connections.clear();
  }
}
