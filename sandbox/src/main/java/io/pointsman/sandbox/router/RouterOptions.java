package io.pointsman.sandbox.router;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Router} reads the topology and reaches the primaries. Build it with {@link #builder()},
 * which checks it. The MySQL password never appears in {@link #toString()}.
 *
 * @param store the topology to follow; the router does not close it
 * @param cell the cell whose SrvKeyspace and SrvVSchema records are read
 * @param mysqlPassword public for the load verifier, which reads every shard's primary directly; never logged
 * @param bufferWindow how long a statement may wait, from its first attempt, for the topology to let it through
 * @param statementTimeout how long one attempt may run on MySQL before it is cancelled (outcome then unknown)
 * @param connectTimeout how long to wait for a connection to a primary before giving up without sending
 * @param poolSize connections per primary database
 */
public record RouterOptions(TopologyStore store, String cell, String mysqlUser, String mysqlPassword,
    Duration bufferWindow, int bufferSize, Duration statementTimeout, Duration connectTimeout, int poolSize) {
  /** vtgate's {@code --buffer_window} default. */
  public static final Duration DEFAULT_BUFFER_WINDOW = Duration.ofSeconds(10);
  /** vtgate's {@code --buffer_size} default: at most this many statements wait at once. */
  public static final int DEFAULT_BUFFER_SIZE = 1000;

  /** Checks what {@link #builder()} and a direct construction give. */
  public RouterOptions {
    if (store == null) {
      throw PointsmanException.invalidArgument("router needs a topology store (store(...) or etcd(...))");
    }
    Names.cell(cell);
    if (mysqlUser == null || mysqlUser.isEmpty()) {
      throw PointsmanException.invalidArgument("router needs a MySQL user");
    }
    Objects.requireNonNull(mysqlPassword, "mysqlPassword");
    positive("buffer window", bufferWindow);
    positive("statement timeout", statementTimeout);
    positive("connect timeout", connectTimeout);
    if (statementTimeout.toMillis() < 1000) {
      // JDBC query timeouts have whole-second granularity.
      throw PointsmanException.invalidArgument("statement timeout must be at least 1s, was " + statementTimeout);
    }
    if (bufferSize < 1) {
      throw PointsmanException.invalidArgument("buffer size must be at least 1, was " + bufferSize);
    }
    if (poolSize < 1) {
      throw PointsmanException.invalidArgument("pool size must be at least 1, was " + poolSize);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private static void positive(String what, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw PointsmanException.invalidArgument(what + " must be positive, was " + d);
    }
  }

  @Override
  public String toString() {
    return "RouterOptions{cell=" + cell + ", mysqlUser=" + mysqlUser + ", bufferWindow=" + bufferWindow
        + ", bufferSize=" + bufferSize + ", statementTimeout=" + statementTimeout + ", poolSize=" + poolSize + "}";
  }

  public static final class Builder {
    private TopologyStore store;
    private String cell = "zone1";
    private String mysqlUser;
    private String mysqlPassword = "";
    private Duration bufferWindow = DEFAULT_BUFFER_WINDOW;
    private int bufferSize = DEFAULT_BUFFER_SIZE;
    private Duration statementTimeout = Duration.ofSeconds(10);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private int poolSize = 8;

    private Builder() {}

    /** The topology to follow. The router does not close it. */
    public Builder store(TopologyStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** Shorthand for {@link #store} over an etcd client (not closed by the router) and key layout. */
    public Builder etcd(Client client, TopoPaths paths) {
      return store(new EtcdTopologyStore(client, paths));
    }

    /** The cell whose SrvKeyspace and SrvVSchema records are read; default {@code zone1}. */
    public Builder cell(String cell) {
      this.cell = Names.cell(cell);
      return this;
    }

    public Builder mysqlUser(String user) {
      this.mysqlUser = Objects.requireNonNull(user, "mysqlUser");
      return this;
    }

    public Builder mysqlPassword(String password) {
      this.mysqlPassword = Objects.requireNonNull(password, "mysqlPassword");
      return this;
    }

    public Builder bufferWindow(Duration window) {
      this.bufferWindow = Objects.requireNonNull(window, "bufferWindow");
      return this;
    }

    public Builder bufferSize(int size) {
      this.bufferSize = size;
      return this;
    }

    public Builder statementTimeout(Duration timeout) {
      this.statementTimeout = Objects.requireNonNull(timeout, "statementTimeout");
      return this;
    }

    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = Objects.requireNonNull(timeout, "connectTimeout");
      return this;
    }

    public Builder poolSize(int size) {
      this.poolSize = size;
      return this;
    }

    public RouterOptions build() {
      return new RouterOptions(store, cell, mysqlUser, mysqlPassword, bufferWindow, bufferSize, statementTimeout,
          connectTimeout, poolSize);
    }
  }
}
