package io.pointsman.sandbox.streams;

import io.pointsman.engine.topo.TopologyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link StreamRunner} finds its streams and runs them. Built with {@link #builder()}; the
 * topology and the MySQL user are required, everything else has the sandbox's defaults.
 *
 * @param topology where source shards, their primaries and VSchemas are looked up, and (by default) the
 *     primaries to serve
 * @param pollInterval how often each primary's {@code vreplication} table is read for started, stopped or
 *     deleted streams
 * @param heartbeatInterval how often an idle stream records {@code time_heartbeat} and the position it passed
 * @param primaries the primaries to serve; empty means every shard primary in the topology, re-read as it changes
 * @param copyBatchSize rows per target transaction in the copy phase
 */
public record StreamRunnerOptions(TopologyStore topology, String mysqlUser, String mysqlPassword,
    Duration pollInterval, Duration heartbeatInterval, List<TargetPrimary> primaries, int copyBatchSize,
    Duration retryInitialBackoff, Duration retryMaxBackoff) {
  /** Checks what the builder and a direct construction give; keeps its own copy of the primaries. */
  public StreamRunnerOptions {
    if (topology == null) {
      throw new IllegalStateException("a topology store is required");
    }
    if (mysqlUser == null || mysqlUser.isEmpty()) {
      throw new IllegalStateException("a MySQL user is required");
    }
    if (retryMaxBackoff.compareTo(retryInitialBackoff) < 0) {
      throw new IllegalStateException("the maximum retry backoff is below the initial one");
    }
    primaries = List.copyOf(primaries);
  }

  public static Builder builder() {
    return new Builder();
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
      return new StreamRunnerOptions(topology, mysqlUser, mysqlPassword, pollInterval, heartbeatInterval, primaries,
          copyBatchSize, retryInitialBackoff, retryMaxBackoff);
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
