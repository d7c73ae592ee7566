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
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes through a real vtgate's MySQL port (no authentication, no default keyspace: vtgate routes
 * each table by its routing rules, as for an application). Each writer thread keeps a connection of
 * its own; a connection whose write failed is dropped, so that the next write does not inherit a
 * broken session. A write is never retried: a failure is the load's to record.
 */
public final class VtgateWrites implements WriteTarget, AutoCloseable {
  private final String url;
  private final Duration longestAnswer;
  private final Map<Thread, Connection> connections = new ConcurrentHashMap<>();

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
    }
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

  @Override
  public void close() {
    connections.values().forEach(c -> {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing at the end of the load; nothing to do about it
      }
    });
    connections.clear();
  }
}
