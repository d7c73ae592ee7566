package io.pointsman.sandbox.streams;

import io.pointsman.engine.topo.TopologyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link StreamRunner} finds its streams and runs them. Built with {@link #builder()}; the
 * topology and the MySQL user are required, everything else has the sandbox's defaults.
 */
public final class StreamRunnerOptions {
  private final TopologyStore topology;
  private final String mysqlUser;
  private final String mysqlPassword;
  private final Duration pollInterval;
  private final Duration heartbeatInterval;
  private final List<TargetPrimary> primaries;
  private final int copyBatchSize;
  private final Duration retryInitialBackoff;
  private final Duration retryMaxBackoff;

  private StreamRunnerOptions(Builder b) {
    this.topology = b.topology;
    this.mysqlUser = b.mysqlUser;
    this.mysqlPassword = b.mysqlPassword;
    this.pollInterval = b.pollInterval;
    this.heartbeatInterval = b.heartbeatInterval;
    this.primaries = List.copyOf(b.primaries);
    this.copyBatchSize = b.copyBatchSize;
    this.retryInitialBackoff = b.retryInitialBackoff;
    this.retryMaxBackoff = b.retryMaxBackoff;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Where source shards, their primaries and VSchemas are looked up, and (by default) the primaries to serve. */
  public TopologyStore topology() {
    return topology;
  }

  public String mysqlUser() {
    return mysqlUser;
  }

  public String mysqlPassword() {
    return mysqlPassword;
  }

  /** How often each primary's {@code vreplication} table is read for started, stopped or deleted streams. */
  public Duration pollInterval() {
    return pollInterval;
  }

  /** How often an idle stream records {@code time_heartbeat} and the position it passed. */
  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /** The primaries to serve; empty means every shard primary in the topology, re-read as it changes. */
  public List<TargetPrimary> primaries() {
    return primaries;
  }

  /** Rows per target transaction in the copy phase. */
  public int copyBatchSize() {
    return copyBatchSize;
  }

  public Duration retryInitialBackoff() {
    return retryInitialBackoff;
  }

  public Duration retryMaxBackoff() {
    return retryMaxBackoff;
  }

  @Override
  public String toString() {
    return "StreamRunnerOptions{user=" + mysqlUser + ", poll=" + pollInterval + ", heartbeat=" + heartbeatInterval
        + ", primaries=" + (primaries.isEmpty() ? "from topology" : primaries) + ", copyBatchSize=" + copyBatchSize + "}";
  }

  /** Mutable builder; {@link #build()} checks and copies. */
  public static final class Builder {
    private TopologyStore topology;
    private String mysqlUser;
    private String mysqlPassword;
    private Duration pollInterval = Duration.ofMillis(200);
    private Duration heartbeatInterval = Duration.ofSeconds(1);
    private final List<TargetPrimary> primaries = new ArrayList<>();
    private int copyBatchSize = 500;
    private Duration retryInitialBackoff = Duration.ofMillis(200);
    private Duration retryMaxBackoff = Duration.ofSeconds(5);

    private Builder() {}

    public Builder topology(TopologyStore topology) {
      this.topology = Objects.requireNonNull(topology, "topology");
      return this;
    }

    /** The MySQL account for reading binlogs and writing targets: needs REPLICATION SLAVE and DML rights. */
    public Builder mysqlCredentials(String user, String password) {
      this.mysqlUser = Objects.requireNonNull(user, "user");
      this.mysqlPassword = password;
      return this;
    }

    public Builder pollInterval(Duration interval) {
      this.pollInterval = positive("poll interval", interval);
      return this;
    }

    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = positive("heartbeat interval", interval);
      return this;
    }

    public Builder primaries(List<TargetPrimary> primaries) {
      this.primaries.clear();
      this.primaries.addAll(primaries);
      return this;
    }

    public Builder addPrimary(TargetPrimary primary) {
      this.primaries.add(Objects.requireNonNull(primary, "primary"));
      return this;
    }

    public Builder copyBatchSize(int rows) {
      if (rows < 1) {
        throw new IllegalArgumentException("copy batch size must be at least 1, not " + rows);
      }
      this.copyBatchSize = rows;
      return this;
    }

    public Builder retryBackoff(Duration initial, Duration max) {
      this.retryInitialBackoff = positive("initial retry backoff", initial);
      this.retryMaxBackoff = positive("maximum retry backoff", max);
      return this;
    }

    public StreamRunnerOptions build() {
      if (topology == null) {
        throw new IllegalStateException("a topology store is required");
      }
      if (mysqlUser == null || mysqlUser.isEmpty()) {
        throw new IllegalStateException("a MySQL user is required");
      }
      if (retryMaxBackoff.compareTo(retryInitialBackoff) < 0) {
        throw new IllegalStateException("the maximum retry backoff is below the initial one");
      }
      return new StreamRunnerOptions(this);
    }

    private static Duration positive(String what, Duration d) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, not " + d);
      }
      return d;
    }
  }
}
