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
 * How a {@link Router} reads the topology and reaches the primaries. Immutable; build it with
 * {@link #builder()}. The MySQL password never appears in {@link #toString()}.
 */
public final class RouterOptions {
  /** vtgate's {@code --buffer_window} default. */
  public static final Duration DEFAULT_BUFFER_WINDOW = Duration.ofSeconds(10);
  /** vtgate's {@code --buffer_size} default: at most this many statements wait at once. */
  public static final int DEFAULT_BUFFER_SIZE = 1000;

  private final TopologyStore store;
  private final String cell;
  private final String mysqlUser;
  private final String mysqlPassword;
  private final Duration bufferWindow;
  private final int bufferSize;
  private final Duration statementTimeout;
  private final Duration connectTimeout;
  private final int poolSize;

  private RouterOptions(Builder b) {
    this.store = b.store;
    this.cell = b.cell;
    this.mysqlUser = b.mysqlUser;
    this.mysqlPassword = b.mysqlPassword;
    this.bufferWindow = b.bufferWindow;
    this.bufferSize = b.bufferSize;
    this.statementTimeout = b.statementTimeout;
    this.connectTimeout = b.connectTimeout;
    this.poolSize = b.poolSize;
  }

  public static Builder builder() {
    return new Builder();
  }

  public TopologyStore store() {
    return store;
  }

  public String cell() {
    return cell;
  }

  public String mysqlUser() {
    return mysqlUser;
  }

  /** Public for the load verifier, which reads every shard's primary directly; never logged. */
  public String mysqlPassword() {
    return mysqlPassword;
  }

  /** How long a statement may wait, from its first attempt, for the topology to let it through. */
  public Duration bufferWindow() {
    return bufferWindow;
  }

  public int bufferSize() {
    return bufferSize;
  }

  /** How long one attempt may run on MySQL before it is cancelled (outcome then unknown). */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  /** How long to wait for a connection to a primary before giving up without sending. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** Connections per primary database. */
  public int poolSize() {
    return poolSize;
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
      if (store == null) {
        throw PointsmanException.invalidArgument("router needs a topology store (store(...) or etcd(...))");
      }
      if (mysqlUser == null || mysqlUser.isEmpty()) {
        throw PointsmanException.invalidArgument("router needs a MySQL user");
      }
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
      return new RouterOptions(this);
    }

    private static void positive(String what, Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw PointsmanException.invalidArgument(what + " must be positive, was " + d);
      }
    }
  }
}
