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
 * What {@link Sandbox#up} brings up and where. Build with {@link #builder()}; a direct construction
 * is checked the same way.
 *
 * <p>Ports: primary {@code i} of {@link #primaries()} (in {@link SandboxShape#allPrimaries()}
 * order) listens on {@code basePort + i}; a base port of 0 picks free ports instead. The sandbox's
 * own etcd listens on {@code etcdClientPort} and {@code etcdPeerPort} (0 picks free ports), unless
 * {@link #etcdEndpoint()} names an etcd to use instead.
 *
 * @param dataDir the folder holding every server's data and logs, and the sandbox state file; made absolute
 * @param etcdEndpoint an etcd to use instead of starting one (the sandbox never stops it)
 * @param etcdAccess how the sandbox's own clients reach {@link #etcdEndpoint()} when that etcd wants TLS or
 *     a user (its endpoints are the endpoint's); empty: plain, no user
 * @param reuseRunning whether servers already listening on the sandbox's ports are used rather than
 *     refused: a MariaDB that accepts the sandbox account, an etcd that answers /health
 * @param topoPaths the global root ({@code /vitess/global}) and cell root prefix ({@code /vitess})
 * @param shape the keyspaces' shards and tables
 * @param primaries the primaries to run: all of the shape's unless narrowed
 * @param stopOnJvmExit whether a JVM shutdown stops what this sandbox started (for tests; the CLI leaves it
 *     running)
 */
public record SandboxOptions(Path dataDir, int basePort, Optional<String> etcdEndpoint,
    Optional<EtcdOptions> etcdAccess, int etcdClientPort, int etcdPeerPort, boolean reuseRunning,
    TopoPaths topoPaths, String cell, MysqlCredentials credentials, SandboxShape shape,
    List<ShardPrimary> primaries, Duration startTimeout, Duration stopTimeout, boolean stopOnJvmExit) {
  public static final int DEFAULT_BASE_PORT = 17100;
  public static final int DEFAULT_ETCD_CLIENT_PORT = 2379;
  public static final int DEFAULT_ETCD_PEER_PORT = 2380;

  public SandboxOptions {
    dataDir = dataDir.toAbsolutePath().normalize();
    Objects.requireNonNull(credentials, "credentials");
    if (basePort != 0) {
      Ports.checkPort("base port", basePort);
      Ports.checkPort("last MariaDB port", basePort + shape.allPrimaries().size() - 1);
    }
    if (etcdEndpoint.isEmpty()) {
      if (etcdClientPort != 0) {
        Ports.checkPort("etcd client port", etcdClientPort);
      }
      if (etcdPeerPort != 0) {
        Ports.checkPort("etcd peer port", etcdPeerPort);
      }
    } else if (!etcdEndpoint.get().startsWith("http://") && !etcdEndpoint.get().startsWith("https://")) {
      throw PointsmanException.invalidArgument("etcd endpoint '" + etcdEndpoint.get() + "' must start with http://");
    }
    Names.cell(cell);
    primaries = List.copyOf(primaries);
    if (primaries.isEmpty()) {
      throw PointsmanException.invalidArgument("the sandbox needs at least one primary");
    }
    for (ShardPrimary p : primaries) {
      shape.portOffset(p); // refuses a primary that is not part of the shape
    }
    if (primaries.stream().distinct().count() != primaries.size()) {
      throw PointsmanException.invalidArgument("a primary is listed twice: " + primaries);
    }
    if (startTimeout.isNegative() || startTimeout.isZero() || stopTimeout.isNegative() || stopTimeout.isZero()) {
      throw PointsmanException.invalidArgument("start and stop timeouts must be positive");
    }
  }

  public static Builder builder() {
    return new Builder();
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
      List<ShardPrimary> chosen = primaries != null ? primaries
          : servingOnly ? shape.servingPrimaries() : shape.allPrimaries();
      return new SandboxOptions(dataDir, basePort, Optional.ofNullable(etcdEndpoint), Optional.ofNullable(etcdAccess),
          etcdClientPort, etcdPeerPort, reuseRunning, new TopoPaths(globalRoot, cellRootPrefix), cell, credentials,
          shape, chosen, startTimeout, stopTimeout, stopOnJvmExit);
    }
  }
}
