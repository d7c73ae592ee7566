package io.pointsman.sandbox.cluster;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.SidecarSchema;
import io.pointsman.engine.net.LoopbackPorts;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Vitess-shaped cluster on one machine: an etcd holding the topology and one MariaDB per shard
 * primary on loopback, bootstrapped like the Vitess local examples (see {@link SandboxLayout}).
 *
 * <p>{@link #up} starts what is missing (or reuses running servers when told to), writes the
 * topology, the sidecar tables, the schema and the sample rows. {@link #down} stops what this
 * instance started and leaves nothing of it running. Every server it starts is recorded in
 * {@code sandbox-state.json} in the data folder as soon as it is launched, so {@link #stopAll} can
 * stop the sandbox from another process (the CLI's {@code down}), and {@link #detach} leaves the
 * sandbox running when this process exits.
 *
 * <p>Thread-safe.
 */
public final class Sandbox implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Sandbox.class);
  private static final String ETCD_NAME = "etcd";
  /** How many ports the sandbox tries for one server whose chosen port other processes keep taking. */
  private static final int PORT_CHOICES = 3;

  private enum Lifecycle { STARTING, UP, DETACHED, DOWN }

  private final SandboxOptions options;
  /** Where free loopback ports come from when the options leave a port to the sandbox (0). */
  private final IntSupplier freePorts;
  private final SandboxStateFile stateFile;
  /** The MariaDB servers this instance started, by tablet alias, in start order. */
  private final Map<String, MariaDbProcess> startedPrimaries = new LinkedHashMap<>();
  private final List<RunningPrimary> running = new ArrayList<>();
  private Lifecycle lifecycle = Lifecycle.STARTING;
  private SandboxState state;
  private EtcdServerProcess startedEtcd;
  private Client client;
  private TopologyStore store;
  private ConnectionPools pools;
  private Thread shutdownHook;

  private Sandbox(SandboxOptions options, IntSupplier freePorts) {
    this.options = options;
    this.freePorts = freePorts;
    this.stateFile = new SandboxStateFile(options.dataDir());
  }

  /**
   * Brings the sandbox up. On failure, whatever it had started is stopped again before the error
   * is thrown.
   *
   * @throws PointsmanException FAILED_PRECONDITION when a port is taken (and not reusable) or a
   *     sandbox from the same data folder still runs; UNAVAILABLE when a server does not come up
   */
  public static Sandbox up(SandboxOptions options) {
    return up(options, LoopbackPorts::freePort);
  }

  /** {@link #up(SandboxOptions)} with the free ports handed out by {@code freePorts}: a test's seam. */
  static Sandbox up(SandboxOptions options, IntSupplier freePorts) {
    Sandbox sandbox = new Sandbox(options, freePorts);
    try {
      sandbox.start();
      return sandbox;
    } catch (RuntimeException | Error e) {
      // An Error too: the servers started so far are processes of their own that outlive this JVM.
      try {
        sandbox.down();
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * Stops every server recorded in the data folder's state file, whichever process started it,
   * and removes the file. A recorded PID that no longer runs the recorded server is left alone.
   *
   * @return what happened to each recorded server; empty when there was no state file
   */
  public static List<StoppedProcess> stopAll(Path dataDir, Duration grace) {
    SandboxStateFile file = new SandboxStateFile(dataDir);
    Optional<SandboxState> state = file.read();
    if (state.isEmpty()) {
      return List.of();
    }
    List<StoppedProcess> stopped = new ArrayList<>();
    // Primaries first: etcd last, as up started it first.
    List<SandboxState.ManagedProcess> ordered = state.get().processes().stream()
        .sorted(Comparator.comparing(p -> p.kind() == SandboxState.Kind.ETCD))
        .toList();
    SandboxState left = state.get();
    RuntimeException failure = null;
    for (SandboxState.ManagedProcess p : ordered) {
      try {
        StopOutcome outcome = ProcessControl.stop(p.pid(), p.commandLineMarker(), grace);
        log.info("{} (pid {}, port {}): {}", p.name(), p.pid(), p.port(), outcome);
        stopped.add(new StoppedProcess(p.name(), p.kind(), p.pid(), p.port(), outcome));
        left = left.without(p.name());
      } catch (RuntimeException e) {
        failure = addFailure(failure, e); // keep going: stop the others, keep this one recorded
      }
    }
    if (failure != null) {
      file.write(left);
      throw failure;
    }
    file.delete();
    return stopped;
  }

  public SandboxOptions options() {
    return options;
  }

  public synchronized String etcdEndpoint() {
    checkUp();
    return state.etcdEndpoint();
  }

  /** The etcd client the sandbox's store uses; closed by {@link #down} and {@link #detach}. */
  public synchronized Client etcdClient() {
    checkUp();
    return client;
  }

  /** The topology store over the sandbox's roots. */
  public synchronized TopologyStore store() {
    checkUp();
    return store;
  }

  /** The process ids of the servers the sandbox started (etcd and the MariaDB primaries). */
  public synchronized List<Long> serverPids() {
    checkUp();
    return state.processes().stream().map(SandboxState.ManagedProcess::pid).toList();
  }

  /** The running primaries, in {@link SandboxShape#allPrimaries()} order. */
  public synchronized List<RunningPrimary> primaries() {
    checkUp();
    return List.copyOf(running);
  }

  /** The running primary of a shard. */
  public synchronized RunningPrimary primary(String keyspace, String shard) {
    checkUp();
    return running.stream()
        .filter(p -> p.primary().keyspace().equals(keyspace) && p.primary().shard().equals(shard))
        .findFirst()
        .orElseThrow(() -> PointsmanException.notFound("the sandbox runs no primary for " + keyspace + "/" + shard));
  }

  /** A new connection (no default database) to a shard's primary; the caller closes it. */
  public Connection connect(String keyspace, String shard) {
    return primary(keyspace, shard).connect(options.credentials());
  }

  /** How to connect to the primaries with io.pointsman.engine.mysql (the sandbox account, no TLS on loopback). */
  public MySqlOptions mysqlOptions() {
    return mysqlOptions(options.credentials());
  }

  /** io.pointsman.engine.mysql's options for an account of the sandbox's primaries. */
  public static MySqlOptions mysqlOptions(MysqlCredentials credentials) {
    return MySqlOptions.builder()
        .user(credentials.user())
        .password(credentials.password())
        .tlsMode(MySqlOptions.TlsMode.DISABLED)
        .allowPublicKeyRetrieval(true)
        .build();
  }

  public MoveTablesCreator moveTablesCreator() {
    return new MoveTablesCreator(store(), options.credentials());
  }

  public ReshardCreator reshardCreator() {
    return new ReshardCreator(store(), options.credentials());
  }

  /**
   * Takes down the etcd this sandbox started, keeping its data folder: a topology server outage.
   * Clients of the sandbox stay open and fail their calls until {@link #startEtcd}.
   *
   * @throws PointsmanException FAILED_PRECONDITION when the sandbox uses an etcd it did not start
   */
  public synchronized void stopEtcd(ServerStop how) {
    checkUp();
    EtcdServerProcess etcd = ownEtcd();
    if (how == ServerStop.CRASH) {
      etcd.kill();
    } else {
      etcd.close();
    }
    forget(ETCD_NAME);
  }

  /**
   * Starts the sandbox's own etcd again on the same ports and data folder, so the topology, leases
   * and revisions are those it had, and waits until it is healthy.
   *
   * @throws PointsmanException FAILED_PRECONDITION when it runs or is not the sandbox's own
   */
  public synchronized void startEtcd() {
    checkUp();
    EtcdServerProcess stopped = ownEtcd();
    if (stopped.isRunning()) {
      throw PointsmanException.failedPrecondition("the sandbox's etcd on " + stopped.endpoint() + " already runs");
    }
    startedEtcd = EtcdServerProcess.start(stopped.options());
    remember(new SandboxState.ManagedProcess(ETCD_NAME, SandboxState.Kind.ETCD, startedEtcd.pid(),
        startedEtcd.options().clientPort(), startedEtcd.options().folder().toString()));
  }

  /**
   * Takes down the MariaDB of a shard's primary that this sandbox started, keeping its data: a
   * primary outage. Connections to it break; {@link #startPrimary} brings it back.
   *
   * @throws PointsmanException FAILED_PRECONDITION when the sandbox reused that server
   */
  public synchronized void stopPrimary(String keyspace, String shard, ServerStop how) {
    MariaDbProcess server = ownPrimary(keyspace, shard);
    if (how == ServerStop.CRASH) {
      server.kill();
    } else {
      server.close();
    }
    forget(primary(keyspace, shard).alias().toString());
  }

  /**
   * Starts a stopped primary again with the options it first ran with (port, server id, folder),
   * and waits until the sandbox account logs in; after a crash, InnoDB recovers on the way.
   *
   * @throws PointsmanException FAILED_PRECONDITION when it runs or is not the sandbox's own
   */
  public synchronized void startPrimary(String keyspace, String shard) {
    MariaDbProcess stopped = ownPrimary(keyspace, shard);
    if (stopped.isRunning()) {
      throw PointsmanException.failedPrecondition("the primary of " + keyspace + "/" + shard + " already runs");
    }
    String alias = primary(keyspace, shard).alias().toString();
    MariaDbProcess started = MariaDbProcess.launch(stopped.options());
    startedPrimaries.put(alias, started);
    remember(new SandboxState.ManagedProcess(alias, SandboxState.Kind.MARIADB, started.pid(), started.port(),
        started.options().folder().toString()));
    started.awaitReady();
  }

  /**
   * Leaves the servers running for another process to use and stop ({@link #stopAll}); closes
   * this instance's etcd client. Idempotent.
   */
  public synchronized void detach() {
    if (lifecycle != Lifecycle.UP) {
      return;
    }
    lifecycle = Lifecycle.DETACHED;
    removeShutdownHook();
    closeClients();
    log.info("sandbox detached; its servers keep running (state in {})", stateFile.path());
  }

  /**
   * Stops the servers this instance started (not the ones it reused) and waits until they are
   * gone. Idempotent.
   */
  public synchronized void down() {
    if (lifecycle == Lifecycle.DOWN || lifecycle == Lifecycle.DETACHED) {
      return;
    }
    lifecycle = Lifecycle.DOWN;
    removeShutdownHook();
    RuntimeException failure = null;
    try {
      closeClients();
    } catch (RuntimeException e) {
      failure = e;
    }
    List<String> aliases = new ArrayList<>(startedPrimaries.keySet());
    Collections.reverse(aliases);
    for (String alias : aliases) {
      try {
        startedPrimaries.get(alias).close();
        forget(alias);
      } catch (RuntimeException e) {
        failure = addFailure(failure, e);
      }
    }
    if (startedEtcd != null) {
      try {
        startedEtcd.close();
        forget(ETCD_NAME);
      } catch (RuntimeException e) {
        failure = addFailure(failure, e);
      }
    }
    if (state != null && state.processes().isEmpty()) {
      stateFile.delete(); // nothing of the sandbox is left running: no state to keep
    }
    if (failure != null) {
      throw failure;
    }
    log.info("sandbox in {} is down", options.dataDir());
  }

  @Override
  public void close() {
    down();
  }

  private synchronized void start() {
    try {
      Files.createDirectories(options.dataDir());
    } catch (IOException e) {
      throw new PointsmanException(ErrorCode.FAILED_PRECONDITION,
          "cannot create sandbox data folder " + options.dataDir() + ": " + e.getMessage(), e);
    }
    List<SandboxState.ManagedProcess> inherited = inheritedProcesses();
    String endpoint = startOrReuseEtcd();
    state = new SandboxState(endpoint, options.topoPaths().globalRoot(), options.topoPaths().cellRootPrefix(),
        options.cell(), options.credentials().user(), inherited);
    if (startedEtcd != null) {
      remember(new SandboxState.ManagedProcess(ETCD_NAME, SandboxState.Kind.ETCD, startedEtcd.pid(),
          startedEtcd.options().clientPort(), startedEtcd.options().folder().toString()));
    } else {
      stateFile.write(state);
    }
    startOrReusePrimaries();

    client = EtcdClients.create(options.etcdAccess().orElseGet(() -> EtcdOptions.builder().endpoints(endpoint).build()));
    store = new EtcdTopologyStore(client, options.topoPaths());
    new TopologyBootstrap(store, options.cell(), endpoint, options.shape()).bootstrap(running);
    pools = new ConnectionPools(mysqlOptions());
    SidecarSchema sidecar = new SidecarSchema(pools);
    for (RunningPrimary p : running) {
      sidecar.ensure(p.endpoint());
      prepareDatabase(p);
    }
    lifecycle = Lifecycle.UP;
    if (options.stopOnJvmExit()) {
      shutdownHook = new Thread(this::downQuietly, "sandbox-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    log.info("sandbox is up: etcd {}, {} primaries, data in {}", endpoint, running.size(), options.dataDir());
  }

  /**
   * Servers an earlier sandbox process started from this folder. When reusing, the ones still
   * running stay recorded (stopAll will stop them); otherwise a running one means two sandboxes
   * would share the folder, which is refused.
   */
  private List<SandboxState.ManagedProcess> inheritedProcesses() {
    Optional<SandboxState> prior = stateFile.read();
    if (prior.isEmpty()) {
      return List.of();
    }
    List<SandboxState.ManagedProcess> alive = prior.get().processes().stream()
        .filter(p -> ProcessControl.isRunning(p.pid()))
        .toList();
    if (!alive.isEmpty() && !options.reuseRunning()) {
      throw PointsmanException.failedPrecondition("a sandbox started from " + options.dataDir()
          + " is still running (" + alive.stream().map(p -> p.name() + " pid " + p.pid()).toList()
          + "): stop it first (sandbox down) or reuse it");
    }
    return alive;
  }

  private String startOrReuseEtcd() {
    if (options.etcdEndpoint().isPresent()) {
      String endpoint = options.etcdEndpoint().get();
      if (endpoint.startsWith("http://") && !EtcdServerProcess.isHealthy(endpoint)) {
        throw PointsmanException.unavailable("etcd at " + endpoint + " is not healthy", null);
      }
      log.info("using etcd at {}", endpoint);
      return endpoint;
    }
    int clientPort = options.etcdClientPort() == 0 ? freePorts.getAsInt() : options.etcdClientPort();
    String endpoint = "http://127.0.0.1:" + clientPort;
    if (LoopbackPorts.isListening(clientPort) && options.reuseRunning()) {
      if (!EtcdServerProcess.isHealthy(endpoint)) {
        throw PointsmanException.failedPrecondition("port " + clientPort + " is in use by something that is not a "
            + "healthy etcd");
      }
      log.info("reusing the etcd running at {}", endpoint);
      return endpoint;
    }
    int peerPort = options.etcdPeerPort() == 0 ? freePortOtherThan(List.of(clientPort)) : options.etcdPeerPort();
    startedEtcd = startEtcd(clientPort, peerPort);
    return startedEtcd.endpoint();
  }

  /**
   * Starts etcd; when a port the sandbox chose was taken by another process between the choice and
   * etcd's bind, chooses again (the ports given in the options stay).
   */
  private EtcdServerProcess startEtcd(int clientPort, int peerPort) {
    int client = clientPort;
    int peer = peerPort;
    for (int choice = 1; ; choice++) {
      EtcdServerOptions o = new EtcdServerOptions(options.dataDir().resolve(ETCD_NAME), client, peer, null,
          options.startTimeout(), options.stopTimeout());
      StartupLog startLog = StartupLog.mark(o.log());
      try {
        return EtcdServerProcess.start(o);
      } catch (PointsmanException e) {
        if (!startLog.reportsPortTaken()) {
          throw e;
        }
        String ports = "port " + client + " or " + peer;
        boolean chosen = options.etcdClientPort() == 0 || options.etcdPeerPort() == 0;
        if (!chosen || choice == PORT_CHOICES) {
          throw portTaken("etcd", ports, chosen, choice, e);
        }
        client = options.etcdClientPort() == 0 ? freePortOtherThan(List.of(peer)) : client;
        peer = options.etcdPeerPort() == 0 ? freePortOtherThan(List.of(client)) : peer;
        log.warn("etcd could not bind {}: another process took it; starting it on client port {}, peer port {}",
            ports, client, peer);
      }
    }
  }

  private void startOrReusePrimaries() {
    List<LaunchedPrimary> launched = new ArrayList<>();
    List<Integer> taken = new ArrayList<>();
    for (ShardPrimary primary : options.primaries()) {
      int port = options.basePort() == 0
          ? freePortOtherThan(taken)
          : options.basePort() + options.shape().portOffset(primary);
      taken.add(port);
      TabletAlias alias = primary.alias(options.cell());
      if (LoopbackPorts.isListening(port) && options.reuseRunning()) {
        if (!canLogIn(port)) {
          throw PointsmanException.failedPrecondition("port " + port + " (for " + primary + ") is in use by "
              + "something that does not accept the sandbox account " + options.credentials().user());
        }
        log.info("reusing the MariaDB running on port {} for {}", port, primary);
        running.add(new RunningPrimary(primary, alias, port, true));
        continue;
      }
      launched.add(launchPrimary(running.size(), primary, port));
      running.add(new RunningPrimary(primary, alias, port, false));
    }
    // Launch all, then wait: the servers start up side by side.
    for (LaunchedPrimary l : launched) {
      awaitPrimary(l, taken);
    }
  }

  /** A primary's mariadbd as launched, the mark of its log at launch, its place in {@link #running}. */
  private record LaunchedPrimary(int index, ShardPrimary primary, MariaDbProcess process, StartupLog startLog) {}

  private LaunchedPrimary launchPrimary(int index, ShardPrimary primary, int port) {
    TabletAlias alias = primary.alias(options.cell());
    MariaDbOptions o = MariaDbOptions.builder()
        .folder(options.dataDir().resolve("mysql").resolve(primary.folderName()))
        .port(port)
        .serverId(primary.uid())
        .credentials(options.credentials())
        .startTimeout(options.startTimeout())
        .stopTimeout(options.stopTimeout())
        .build();
    StartupLog startLog = StartupLog.mark(o.log());
    MariaDbProcess p = MariaDbProcess.launch(o);
    startedPrimaries.put(alias.toString(), p);
    remember(new SandboxState.ManagedProcess(alias.toString(), SandboxState.Kind.MARIADB, p.pid(), port,
        o.folder().toString()));
    return new LaunchedPrimary(index, primary, p, startLog);
  }

  /**
   * Waits for a launched primary. A port the sandbox chose was free when chosen, but another process
   * (a test JVM beside this one, in CI) may take it before mariadbd binds it, a few hundred
   * milliseconds later; the primary then starts again on another port (a given port stays).
   */
  private void awaitPrimary(LaunchedPrimary first, List<Integer> taken) {
    LaunchedPrimary l = first;
    for (int choice = 1; ; choice++) {
      try {
        l.process().awaitReady();
        return;
      } catch (PointsmanException e) {
        if (!l.startLog().reportsPortTaken()) {
          throw e;
        }
        boolean chosen = options.basePort() == 0;
        if (!chosen || choice == PORT_CHOICES) {
          throw portTaken("the MariaDB of " + l.primary(), "port " + l.process().port(), chosen, choice, e);
        }
        int port = freePortOtherThan(taken);
        taken.add(port);
        log.warn("the MariaDB of {} could not bind port {}: another process took it; starting it on port {}",
            l.primary(), l.process().port(), port);
        l = launchPrimary(l.index(), l.primary(), port);
        running.set(l.index(), new RunningPrimary(l.primary(), l.primary().alias(options.cell()), port, false));
      }
    }
  }

  private static PointsmanException portTaken(String server, String ports, boolean chosen, int choices,
      PointsmanException cause) {
    String why = chosen
        ? " after " + choices + " choices of port"
        : "; it was given in the options: free it, or leave the port to the sandbox (0)";
    return PointsmanException.unavailable(ports + " was taken by another process while " + server
        + " started on it" + why, cause);
  }

  private boolean canLogIn(int port) {
    try (Connection c = Jdbc.tryOpen(RunningPrimary.HOST, port, options.credentials(), Duration.ofSeconds(2))) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private void prepareDatabase(RunningPrimary p) {
    try (Connection c = p.connect(options.credentials())) {
      String db = p.primary().dbName();
      String keyspace = p.primary().keyspace();
      if (keyspace.equals(SandboxLayout.COMMERCE)) {
        SampleSchema.commerce(c, db, options.shape().extraTableNames());
      } else if (keyspace.equals(SandboxLayout.WAREHOUSE)) {
        SampleSchema.warehouse(c, db);
      } else if (keyspace.equals(SandboxLayout.CUSTOMER) && options.shape().servesInitially(p.primary())) {
        SampleSchema.customerShard(c, db);
      } else {
        SampleSchema.createDatabase(c, db);
      }
    } catch (SQLException e) {
      throw PointsmanException.unavailable("cannot prepare the databases of " + p.primary() + " on port "
          + p.port() + ": " + e.getMessage(), e);
    }
  }

  private void remember(SandboxState.ManagedProcess process) {
    state = state.with(process);
    stateFile.write(state);
  }

  private void forget(String name) {
    if (state == null) {
      return;
    }
    state = state.without(name);
    if (state.processes().isEmpty()) {
      stateFile.delete();
    } else {
      stateFile.write(state);
    }
  }

  private void closeClients() {
    if (pools != null) {
      pools.close();
      pools = null;
    }
    if (client != null) {
      client.close();
      client = null;
    }
  }

  private void removeShutdownHook() {
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook runs down() itself
      }
    }
    shutdownHook = null;
  }

  private void downQuietly() {
    try {
      down();
    } catch (RuntimeException e) {
      log.error("stopping the sandbox at JVM exit failed", e);
    }
  }

  private EtcdServerProcess ownEtcd() {
    if (startedEtcd == null) {
      throw PointsmanException.failedPrecondition("the sandbox uses the etcd at " + state.etcdEndpoint()
          + ", which it did not start and does not stop or start");
    }
    return startedEtcd;
  }

  private MariaDbProcess ownPrimary(String keyspace, String shard) {
    RunningPrimary p = primary(keyspace, shard);
    MariaDbProcess server = startedPrimaries.get(p.alias().toString());
    if (server == null) {
      throw PointsmanException.failedPrecondition("the sandbox reused the MariaDB of " + keyspace + "/" + shard
          + " on port " + p.port() + ", which it does not stop or start");
    }
    return server;
  }

  private void checkUp() {
    if (lifecycle != Lifecycle.UP) {
      throw PointsmanException.failedPrecondition("the sandbox is " + lifecycle.name().toLowerCase(Locale.ROOT));
    }
  }

  /** A free port that is none of {@code taken}: ports given in the options, which LoopbackPorts does not know of. */
  private int freePortOtherThan(Collection<Integer> taken) {
    for (int attempt = 0; attempt < 20; attempt++) {
      int port = freePorts.getAsInt();
      if (!taken.contains(port)) {
        return port;
      }
    }
    throw PointsmanException.unavailable("no free loopback port apart from " + taken + " after 20 tries", null);
  }

  private static RuntimeException addFailure(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
