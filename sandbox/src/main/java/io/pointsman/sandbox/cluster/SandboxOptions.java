package io.pointsman.sandbox.cluster;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.names.Names;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.topo.TopoPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Sandbox#up} brings up and where. Immutable; build with {@link #builder()}.
 *
 * <p>Ports: primary {@code i} of {@link #primaries()} (in {@link SandboxShape#allPrimaries()}
 * order) listens on {@code basePort + i}; a base port of 0 picks free ports instead. The sandbox's
 * own etcd listens on {@code etcdClientPort} and {@code etcdPeerPort} (0 picks free ports), unless
 * {@link #etcdEndpoint()} names an etcd to use instead.
 */
public final class SandboxOptions {
  public static final int DEFAULT_BASE_PORT = 17100;
  public static final int DEFAULT_ETCD_CLIENT_PORT = 2379;
  public static final int DEFAULT_ETCD_PEER_PORT = 2380;

  private final Path dataDir;
  private final int basePort;
  private final Optional<String> etcdEndpoint;
  private final Optional<EtcdOptions> etcdAccess;
  private final int etcdClientPort;
  private final int etcdPeerPort;
  private final boolean reuseRunning;
  private final TopoPaths topoPaths;
  private final String cell;
  private final MysqlCredentials credentials;
  private final SandboxShape shape;
  private final List<ShardPrimary> primaries;
  private final Duration startTimeout;
  private final Duration stopTimeout;
  private final boolean stopOnJvmExit;

  private SandboxOptions(Builder b, List<ShardPrimary> primaries) {
    this.dataDir = b.dataDir.toAbsolutePath().normalize();
    this.basePort = b.basePort;
    this.etcdEndpoint = Optional.ofNullable(b.etcdEndpoint);
    this.etcdAccess = Optional.ofNullable(b.etcdAccess);
    this.etcdClientPort = b.etcdClientPort;
    this.etcdPeerPort = b.etcdPeerPort;
    this.reuseRunning = b.reuseRunning;
    this.topoPaths = new TopoPaths(b.globalRoot, b.cellRootPrefix);
    this.cell = b.cell;
    this.credentials = b.credentials;
    this.shape = b.shape;
    this.primaries = List.copyOf(primaries);
    this.startTimeout = b.startTimeout;
    this.stopTimeout = b.stopTimeout;
    this.stopOnJvmExit = b.stopOnJvmExit;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The folder holding every server's data and logs, and the sandbox state file. */
  public Path dataDir() {
    return dataDir;
  }

  public int basePort() {
    return basePort;
  }

  /** An etcd to use instead of starting one (the sandbox never stops it). */
  public Optional<String> etcdEndpoint() {
    return etcdEndpoint;
  }

  /**
   * How the sandbox's own clients reach {@link #etcdEndpoint()} when that etcd wants TLS or a user
   * (its endpoints are the endpoint's); empty: plain, no user.
   */
  public Optional<EtcdOptions> etcdAccess() {
    return etcdAccess;
  }

  public int etcdClientPort() {
    return etcdClientPort;
  }

  public int etcdPeerPort() {
    return etcdPeerPort;
  }

  /**
   * Whether servers already listening on the sandbox's ports are used rather than refused: a
   * MariaDB that accepts the sandbox account, an etcd that answers /health.
   */
  public boolean reuseRunning() {
    return reuseRunning;
  }

  /** The global root ({@code /vitess/global}) and cell root prefix ({@code /vitess}). */
  public TopoPaths topoPaths() {
    return topoPaths;
  }

  public String cell() {
    return cell;
  }

  public MysqlCredentials credentials() {
    return credentials;
  }

  /** The keyspaces' shards and tables. */
  public SandboxShape shape() {
    return shape;
  }

  /** The primaries to run: all of the shape's unless narrowed. */
  public List<ShardPrimary> primaries() {
    return primaries;
  }

  public Duration startTimeout() {
    return startTimeout;
  }

  public Duration stopTimeout() {
    return stopTimeout;
  }

  /** Whether a JVM shutdown stops what this sandbox started (for tests; the CLI leaves it running). */
  public boolean stopOnJvmExit() {
    return stopOnJvmExit;
  }

  @Override
  public String toString() {
    return "SandboxOptions{dataDir=" + dataDir + ", basePort=" + basePort + ", etcd="
        + etcdEndpoint.orElse("own on " + etcdClientPort) + ", reuseRunning=" + reuseRunning + ", roots="
        + topoPaths.globalRoot() + "," + topoPaths.cellRootPrefix() + ", cell=" + cell + ", " + credentials
        + ", primaries=" + primaries + "}";
  }

  /** Builds {@link SandboxOptions}; {@link #build()} validates. */
  public static final class Builder {
    private Path dataDir = Path.of(System.getProperty("java.io.tmpdir"), "pointsman-sandbox");
    private int basePort = DEFAULT_BASE_PORT;
    private String etcdEndpoint;
    private EtcdOptions etcdAccess;
    private int etcdClientPort = DEFAULT_ETCD_CLIENT_PORT;
    private int etcdPeerPort = DEFAULT_ETCD_PEER_PORT;
    private boolean reuseRunning;
    private String globalRoot = TopoPaths.DEFAULT_GLOBAL_ROOT;
    private String cellRootPrefix = TopoPaths.DEFAULT_CELL_ROOT_PREFIX;
    private String cell = SandboxLayout.DEFAULT_CELL;
    private MysqlCredentials credentials = MysqlCredentials.defaults();
    private SandboxShape shape = SandboxShape.DEFAULT;
    /** Null: all of the shape's primaries, or only the serving ones when servingOnly. */
    private List<ShardPrimary> primaries;
    private boolean servingOnly;
    private Duration startTimeout = Duration.ofSeconds(90);
    private Duration stopTimeout = Duration.ofSeconds(30);
    private boolean stopOnJvmExit;

    private Builder() {}

    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    /** The first MariaDB port; 0 picks free ports. */
    public Builder basePort(int basePort) {
      this.basePort = basePort;
      return this;
    }

    /** Use this etcd (e.g. {@code http://127.0.0.1:2379}) instead of starting one; null starts one. */
    public Builder etcdEndpoint(String endpoint) {
      this.etcdEndpoint = endpoint;
      this.etcdAccess = null;
      return this;
    }

    /**
     * Use this etcd, whose TLS settings and user {@code access} carries (a secured etcd, as an
     * operator runs it); the sandbox's store, and what uses it, connect with them.
     */
    public Builder etcdEndpoint(EtcdOptions access) {
      this.etcdAccess = Objects.requireNonNull(access, "access");
      this.etcdEndpoint = access.endpoints().get(0);
      return this;
    }

    /** The ports of the sandbox's own etcd; 0 picks a free port. */
    public Builder etcdPorts(int clientPort, int peerPort) {
      this.etcdClientPort = clientPort;
      this.etcdPeerPort = peerPort;
      return this;
    }

    public Builder reuseRunning(boolean reuseRunning) {
      this.reuseRunning = reuseRunning;
      return this;
    }

    public Builder topologyRoots(String globalRoot, String cellRootPrefix) {
      this.globalRoot = Objects.requireNonNull(globalRoot, "globalRoot");
      this.cellRootPrefix = Objects.requireNonNull(cellRootPrefix, "cellRootPrefix");
      return this;
    }

    public Builder cell(String cell) {
      this.cell = Objects.requireNonNull(cell, "cell");
      return this;
    }

    public Builder credentials(MysqlCredentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /** The keyspaces' shards and tables; default {@link SandboxShape#DEFAULT}. */
    public Builder shape(SandboxShape shape) {
      this.shape = Objects.requireNonNull(shape, "shape");
      return this;
    }

    /** Which primaries to run, from the shape's {@link SandboxShape#allPrimaries()}. */
    public Builder primaries(List<ShardPrimary> primaries) {
      this.primaries = List.copyOf(primaries);
      this.servingOnly = false;
      return this;
    }

    /** Runs only the serving shards' primaries (three MariaDB servers instead of seven): no Reshard. */
    public Builder withoutReshardTargets() {
      this.primaries = null;
      this.servingOnly = true;
      return this;
    }

    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
      return this;
    }

    public Builder stopTimeout(Duration stopTimeout) {
      this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
      return this;
    }

    public Builder stopOnJvmExit(boolean stopOnJvmExit) {
      this.stopOnJvmExit = stopOnJvmExit;
      return this;
    }

    public SandboxOptions build() {
      if (basePort != 0) {
        Ports.checkPort("base port", basePort);
        Ports.checkPort("last MariaDB port", basePort + shape.allPrimaries().size() - 1);
      }
      if (etcdEndpoint == null) {
        if (etcdClientPort != 0) {
          Ports.checkPort("etcd client port", etcdClientPort);
        }
        if (etcdPeerPort != 0) {
          Ports.checkPort("etcd peer port", etcdPeerPort);
        }
      } else if (!etcdEndpoint.startsWith("http://") && !etcdEndpoint.startsWith("https://")) {
        throw PointsmanException.invalidArgument("etcd endpoint '" + etcdEndpoint + "' must start with http://");
      }
      Names.cell(cell);
      List<ShardPrimary> chosen = primaries != null ? primaries
          : servingOnly ? shape.servingPrimaries() : shape.allPrimaries();
      if (chosen.isEmpty()) {
        throw PointsmanException.invalidArgument("the sandbox needs at least one primary");
      }
      for (ShardPrimary p : chosen) {
        shape.portOffset(p); // refuses a primary that is not part of the shape
      }
      if (chosen.stream().distinct().count() != chosen.size()) {
        throw PointsmanException.invalidArgument("a primary is listed twice: " + chosen);
      }
      if (startTimeout.isNegative() || startTimeout.isZero() || stopTimeout.isNegative() || stopTimeout.isZero()) {
        throw PointsmanException.invalidArgument("start and stop timeouts must be positive");
      }
      return new SandboxOptions(this, chosen);
    }
  }
}
