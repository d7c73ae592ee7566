package io.pointsman.e2e.vitess;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.engine.tablet.TabletEndpoint;
import io.pointsman.sandbox.cluster.Folders;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Vitess 24 cluster for one test class: {@code scripts/vitess-cluster.sh up} as a child
 * process (etcd, vtctld, vtgate, one MariaDB and one unmanaged vttablet per shard: commerce/0 uid
 * 100, customer/-80 uid 200, customer/80- uid 300), its addresses read from the lines it prints,
 * and SIGTERM to it on {@link #close()}, which makes the script stop everything and remove its
 * folder.
 *
 * <p>Needs the Vitess binaries in {@code POINTSMAN_VITESS_BIN} ({@code scripts/test.sh} builds and
 * exports them). Without them the test fails: a skipped real-cluster test would look green.
 */
public final class VitessCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(VitessCluster.class);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);
  /** Starts tried when a server of the cluster finds its port taken (see {@link #start(Map)}). */
  private static final int START_ATTEMPTS = 3;
  /** What a Vitess server or MariaDB logs when its port is taken (MariaDB capitalizes it). */
  private static final String PORT_TAKEN = "address already in use";
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration VTCTLDCLIENT_TIMEOUT = Duration.ofMinutes(3);
  /** How long a workflow's create waits out the primaries' closed VReplication engines. */
  private static final Duration ENGINES_OPEN_WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One tablet as the script lists it. */
  public record Tablet(String alias, String keyspace, String shard, String type, String grpcAddress, int mysqlPort) {
    public TabletEndpoint endpoint() {
      return TabletEndpoint.of(alias, grpcAddress);
    }
  }

  private final Process process;
  private final Path scriptLog;
  private final Map<String, String> env;
  private final List<Tablet> tablets;
  private final Duration startup;
  private final Thread shutdownHook;
  /** The files a test class sets the cluster up with ({@link #setupFile}); made on first use, deleted on stop. */
  private Path setupDir;

  private VitessCluster(Process process, Thread shutdownHook, Path scriptLog, Map<String, String> env, Duration startup) {
    this.process = process;
    this.shutdownHook = shutdownHook;
    this.scriptLog = scriptLog;
    this.env = env;
    this.startup = startup;
    this.tablets = parseTablets(require(env, "POINTSMAN_VITESS_TABLETS"));
  }

  /** Starts a cluster and waits until vtgate answers. */
  public static VitessCluster start() {
    return start(Map.of());
  }

  /** What a test class sets up on a new cluster: schemas, rows, workflows. */
  @FunctionalInterface
  public interface Setup {
    void prepare(VitessCluster cluster) throws Exception;
  }

  /** {@link #start(Map)}, then {@code setup}; a setup that fails closes the cluster before it throws. */
  public static VitessCluster start(Map<String, String> scriptEnv, Setup setup) throws Exception {
    VitessCluster cluster = start(scriptEnv);
    try {
      setup.prepare(cluster);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Starts a cluster with these variables added to the script's environment (e.g.
   * {@code POINTSMAN_VITESS_GRPC_TLS_DIR}) and waits until vtgate answers. A start that failed
   * because one of its servers found its port taken is made again, on other ports: the script
   * picks free ports by binding them once, and another cluster starting at the same moment (test
   * classes run side by side) can pick and take one of them before this cluster's server binds it.
   */
  public static VitessCluster start(Map<String, String> scriptEnv) {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(scriptEnv);
      } catch (IllegalStateException e) {
        if (attempt == START_ATTEMPTS || e.getMessage() == null
            || !e.getMessage().toLowerCase(Locale.ROOT).contains(PORT_TAKEN)) {
          throw e;
        }
        log.warn("the Vitess cluster's start lost a port to another process (attempt {} of {}); starting it again"
            + " on other ports", attempt, START_ATTEMPTS);
      }
    }
  }

  private static VitessCluster startOnce(Map<String, String> scriptEnv) {
    for (String binary : List.of("vttablet", "vtctld", "vtgate", "vtctldclient")) {
      VitessBinaries.binary(binary); // fails, naming what is missing and how to build it
    }
    Path repo = repoRoot();
    Path script = repo.resolve("scripts/vitess-cluster.sh");
    long t0 = System.nanoTime();
    Path logFile;
    Process p;
    try {
      Path target = Files.createDirectories(Paths.get("target"));
      logFile = Files.createTempFile(target.toAbsolutePath(), "vitess-cluster-", ".log");
      ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "up")
          .directory(repo.toFile())
          .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      pb.environment().put("POINTSMAN_VITESS_TRACE", "1");
      pb.environment().putAll(scriptEnv);
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("could not start " + script, e);
    }
    // a JVM that ends without close() (a killed test run, a hung start) must not leave the cluster behind
    Process started = p;
    Thread hook = new Thread(() -> stopProcess(started), "vitess-cluster-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    Map<String, String> env = new LinkedHashMap<>();
    CompletableFuture<Void> ready = CompletableFuture.runAsync(() -> readEnv(p, env));
    try {
      ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // read before the stop removes them: a tablet that never registers says why only in its log
      String processLogs = processLogTails(logFile);
      stopProcess(p);
      Runtime.getRuntime().removeShutdownHook(hook);
      throw new IllegalStateException("Vitess cluster did not come up within " + START_TIMEOUT + " (" + e
          + "); the script's log " + logFile + " ends with:\n" + tail(logFile) + processLogs, e);
    }
    VitessCluster c = new VitessCluster(p, hook, logFile, Map.copyOf(env), Duration.ofNanos(System.nanoTime() - t0));
    log.info("Vitess cluster up in {} ms: vtctld {}, vtgate MySQL port {}, tablets {}", c.startup.toMillis(),
        c.vtctldGrpc(), c.vtgateMysqlPort(), c.tablets);
    return c;
  }

  /**
   * Reads {@code NAME=value} lines (bash {@code printf %q} quoting) until the script's last line
   * after the start, {@code RSS total: ...}; fails if the script ends first.
   */
  private static void readEnv(Process p, Map<String, String> env) {
    // not closed here: the drain thread goes on reading it
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    try {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("RSS total:")) {
          // keep draining stdout so the script never blocks on a full pipe
          Thread drain = new Thread(() -> drain(r), "vitess-cluster-stdout");
          drain.setDaemon(true);
          drain.start();
          return;
        }
        int eq = line.indexOf('=');
        if (eq > 0 && line.substring(0, eq).matches("[A-Z_][A-Z0-9_]*")) {
          env.put(line.substring(0, eq), unquote(line.substring(eq + 1)));
        }
      }
      throw new IllegalStateException("vitess-cluster.sh ended before the cluster was up");
    } catch (IOException e) {
      throw new IllegalStateException("reading vitess-cluster.sh output", e);
    }
  }

  private static void drain(BufferedReader r) {
    try {
      while (r.readLine() != null) {
        // nothing else is printed while the cluster runs
      }
    } catch (IOException ignored) {
      // the script ended
    }
  }

  /** Undoes bash's {@code %q}: backslash escapes and single quotes (what it prints for these values). */
  static String unquote(String q) {
    if (q.startsWith("$'")) {
      throw new IllegalStateException("value with control characters is not expected: " + q);
    }
    StringBuilder b = new StringBuilder();
    boolean single = false;
    for (int i = 0; i < q.length(); i++) {
      char c = q.charAt(i);
      if (single) {
        if (c == '\'') {
          single = false;
        } else {
          b.append(c);
        }
      } else if (c == '\'') {
        single = true;
      } else if (c == '\\' && i + 1 < q.length()) {
        b.append(q.charAt(++i));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** {@code alias,keyspace/shard,type,grpc host:port,mysql port} words. */
  static List<Tablet> parseTablets(String words) {
    List<Tablet> out = new ArrayList<>();
    for (String w : words.trim().split("\\s+")) {
      String[] f = w.split(",");
      if (f.length != 5 || !f[1].contains("/")) {
        throw new IllegalStateException("unexpected tablet entry '" + w + "' in POINTSMAN_VITESS_TABLETS");
      }
      int slash = f[1].indexOf('/');
      out.add(new Tablet(f[0], f[1].substring(0, slash), f[1].substring(slash + 1), f[2], f[3], Integer.parseInt(f[4])));
    }
    return List.copyOf(out);
  }

  /** The repository: the parent of the module folder Maven runs the tests in. */
  static Path repoRoot() {
    Path module = Paths.get("").toAbsolutePath();
    Path repo = module.getParent();
    if (repo == null || !Files.isRegularFile(repo.resolve("scripts/vitess-cluster.sh"))) {
      throw new IllegalStateException("no scripts/vitess-cluster.sh in the parent of " + module);
    }
    return repo;
  }

  public String env(String name) {
    return require(env, name);
  }

  public String vtctldGrpc() {
    return env("POINTSMAN_VTCTLD_GRPC");
  }

  public int vtgateMysqlPort() {
    return Integer.parseInt(env("POINTSMAN_VTGATE_MYSQL_PORT"));
  }

  public List<Tablet> tablets() {
    return tablets;
  }

  /** The tablet with this uid (100, 200, 300 in the default layout). */
  /** The tablets started as their shard's primary in {@code keyspace}. */
  public List<Tablet> primaries(String keyspace) {
    return tablets().stream().filter(t -> t.keyspace().equals(keyspace) && t.type().equals("primary")).toList();
  }

  public Tablet tablet(int uid) {
    String alias = String.format("%s-%010d", "zone1", uid);
    return tablets.stream().filter(t -> t.alias().equals(alias)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no tablet " + alias + " in " + tablets));
  }

  /**
   * The processes the script started (as its {@code pids} file lists them, {@code "pid name"}) that
   * are alive and not its descendants. A stop that cannot wait for the script's trap (a start that
   * timed out, a stop past {@code STOP_TIMEOUT}) kills the script's descendants: any other process
   * of the cluster would run on after it.
   */
  public List<String> processesOutsideTheScript() throws IOException {
    Set<Long> descendants = process.descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    List<String> outside = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(env("VITESS_CLUSTER_DIR"), "pids"), StandardCharsets.UTF_8)) {
      String[] pidAndName = line.trim().split(" ", 2);
      long pid = Long.parseLong(pidAndName[0]);
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && !descendants.contains(pid)) {
        outside.add(line.trim());
      }
    }
    return outside;
  }

  /** How long {@link #start()} took until vtgate answered. */
  public Duration startup() {
    return startup;
  }

  /**
   * {@link #vtctldclient} for a command that needs the primaries' VReplication engines (a workflow's
   * {@code create}). A primary opens its engine a moment after it is promoted, and vtctld meanwhile
   * refuses such a command with "vreplication engine is closed", having created nothing (a CI run's
   * Reshard create met it on a cluster that came up in seconds); that answer is waited out, 60 s at most.
   */
  public String vtctldclientOnceEnginesOpen(String... args) {
    return onceEnginesOpen("vtctldclient " + String.join(" ", args), () -> vtctldclient(args), ENGINES_OPEN_WAIT);
  }

  /**
   * {@code call}'s result, called again while it fails with vtctld's "vreplication engine is
   * closed", {@code atMost} in all; any other failure is passed on at once.
   */
  static String onceEnginesOpen(String what, Supplier<String> call, Duration atMost) {
    AtomicReference<String> out = new AtomicReference<>();
    await("the primaries' VReplication engines open, for " + what)
        .atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsMatching(e -> e instanceof IllegalStateException && e.getMessage() != null
            && e.getMessage().contains("vreplication engine is closed"))
        .until(() -> {
          out.set(call.get());
          return true;
        });
    return out.get();
  }

  /** Runs vtctldclient against this cluster's vtctld; returns its stdout, fails with its stderr. */
  public String vtctldclient(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(VitessBinaries.binary("vtctldclient").toString());
    cmd.add("--server");
    cmd.add(vtctldGrpc());
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).start();
      CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
      if (!p.waitFor(VTCTLDCLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("vtctldclient " + String.join(" ", args) + " did not end within " + VTCTLDCLIENT_TIMEOUT);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("vtctldclient " + String.join(" ", args) + " exited " + p.exitValue() + ": " + err.join());
      }
      return out.join();
    } catch (IOException e) {
      throw new IllegalStateException("could not run vtctldclient", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running vtctldclient", e);
    }
  }

  /** Like {@link #vtctldclient}, its output parsed as JSON. */
  public JsonNode vtctldclientJson(String... args) {
    try {
      return JSON.readTree(vtctldclient(args));
    } catch (IOException e) {
      throw new IllegalStateException("vtctldclient " + String.join(" ", args) + " printed no JSON", e);
    }
  }

  /**
   * The streams of a MoveTables workflow as {@code vtctldclient MoveTables show} reports them
   * (vtctld asks each target primary): {@code id}, {@code shard}, {@code state}, {@code message},
   * {@code copy_states}, ...
   */
  public List<JsonNode> moveTablesStreams(String targetKeyspace, String workflow) {
    return workflowStreams("MoveTables", targetKeyspace, workflow);
  }

  /**
   * Whether vtctld shows {@code count} streams of the workflow ({@code command} {@code MoveTables} or
   * {@code Reshard}), all in {@code state} with no copy left.
   */
  public boolean allStreams(String command, String targetKeyspace, String workflow, int count, String state) {
    List<JsonNode> streams = workflowStreams(command, targetKeyspace, workflow);
    return streams.size() == count && streams.stream().allMatch(s -> s.path("state").asText().equals(state)
        && (s.path("copy_states").isMissingNode() || s.path("copy_states").isEmpty()));
  }

  /** The same for a workflow of the given vtctldclient command ({@code MoveTables} or {@code Reshard}). */
  public List<JsonNode> workflowStreams(String command, String targetKeyspace, String workflow) {
    JsonNode show = vtctldclientJson(command, "--workflow", workflow, "--target-keyspace", targetKeyspace,
        "show", "--include-logs=false");
    List<JsonNode> streams = new ArrayList<>();
    for (JsonNode wf : show.path("workflows")) {
      for (JsonNode shardStreams : wf.path("shard_streams")) {
        shardStreams.path("streams").forEach(streams::add);
      }
    }
    return streams;
  }

  /**
   * The traffic state vtctld reports for a workflow ({@code command} {@code MoveTables} or
   * {@code Reshard}), e.g. "All Reads Switched. Writes Switched".
   */
  public String trafficState(String command, String targetKeyspace, String workflow) {
    return vtctldclientJson(command, "--workflow", workflow, "--target-keyspace", targetKeyspace, "status",
        "--format", "json").path("traffic_state").asText();
  }

  /** A connection to vtgate (MySQL protocol, no authentication) with {@code keyspace} as its database; empty for none. */
  public Connection vtgate(String keyspace) throws SQLException {
    String url = "jdbc:mysql://127.0.0.1:" + vtgateMysqlPort() + "/" + keyspace
        + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=10000&socketTimeout=60000";
    return DriverManager.getConnection(url, "app", "");
  }

  /**
   * A connection as vt_dba straight to the MariaDB under a tablet, with the keyspace's database
   * ({@code vt_<keyspace>}) selected: what the tablet stores, behind vtgate's back.
   */
  public Connection tabletDba(Tablet t) throws SQLException {
    String url = "jdbc:mysql://127.0.0.1:" + t.mysqlPort() + "/vt_" + t.keyspace()
        + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=10000&socketTimeout=60000";
    return DriverManager.getConnection(url, "vt_dba", env("POINTSMAN_VITESS_DB_PASSWORD"));
  }

  /** A one-column query straight on the MariaDB under a tablet, as {@link #tabletDba} connects. */
  public List<String> onTablet(Tablet t, String sql) throws SQLException {
    try (Connection c = tabletDba(t); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  /** {@code vtctldclient Workflow --keyspace <keyspace> list}: the names of the keyspace's workflows. */
  public List<String> workflows(String keyspace) {
    List<String> names = new ArrayList<>();
    vtctldclientJson("Workflow", "--keyspace", keyspace, "list").forEach(n -> names.add(n.asText()));
    return names;
  }

  /** {@code vtctldclient GetKeyspaces}: the names of the topology's keyspaces (a JSON array of {name, keyspace}). */
  public List<String> keyspaces() {
    List<String> names = new ArrayList<>();
    vtctldclientJson("GetKeyspaces").forEach(k -> names.add(k.path("name").asText()));
    return names;
  }

  /** Runs statements through vtgate, each on its own (vtgate autocommit). */
  public void execute(String keyspace, String... statements) throws SQLException {
    try (Connection c = vtgate(keyspace); Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }

  /** A query through vtgate; rows as text. */
  public List<List<String>> query(String keyspace, String sql) throws SQLException {
    try (Connection c = vtgate(keyspace); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      List<List<String>> rows = new ArrayList<>();
      while (rs.next()) {
        List<String> row = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        rows.add(row);
      }
      return rows;
    }
  }

  /**
   * Writes a file for vtctldclient to read (a schema, a VSchema) into a folder of this cluster's,
   * which {@link #close()} deletes with the cluster.
   */
  public synchronized Path setupFile(String name, String content) throws IOException {
    if (setupDir == null) {
      setupDir = Files.createTempDirectory("vitess-setup");
    }
    return Files.writeString(setupDir.resolve(name), content);
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook runs (or ran) stop() itself
    }
    stop();
  }

  private void stop() {
    long t0 = System.nanoTime();
    stopProcess(process);
    deleteSetupFiles();
    log.info("Vitess cluster stopped in {} ms; the script's log is {}", (System.nanoTime() - t0) / 1_000_000, scriptLog);
  }

  private synchronized void deleteSetupFiles() {
    if (setupDir == null) {
      return;
    }
    try {
      Folders.deleteTree(setupDir);
    } catch (IOException e) {
      log.warn("could not delete the setup files in {}: {}", setupDir, e.getMessage());
    }
  }

  /** SIGTERM (Process.destroy on Linux): the script's trap stops vtgate, the vttablets, vtctld, MariaDB and etcd. */
  private static void stopProcess(Process p) {
    if (!p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("vitess-cluster.sh still running {} after SIGTERM; killing it and its processes", STOP_TIMEOUT);
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  private static String require(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException("vitess-cluster.sh printed no " + name + "; it printed " + env.keySet());
    }
    return v;
  }

  private static String readAll(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * The last lines of each process log in the cluster's folder, which the script names in its
   * trace ({@code folder ...}); empty when it has not named one yet.
   */
  private static String processLogTails(Path scriptLog) {
    String marker = " s folder ";
    String folder = null;
    try {
      for (String line : Files.readAllLines(scriptLog, StandardCharsets.UTF_8)) {
        int at = line.indexOf(marker);
        if (line.startsWith("vitess-cluster: +") && at > 0) {
          folder = line.substring(at + marker.length()).strip();
        }
      }
    } catch (IOException e) {
      return "\n(the script's log is unreadable: " + e + ")";
    }
    if (folder == null) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    try (var logs = Files.list(Paths.get(folder))) {
      for (Path log : logs.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
        out.append("\n-- ").append(log).append(" ends with:\n").append(tail(log));
      }
    } catch (IOException e) {
      out.append("\n(the cluster's folder ").append(folder).append(" is unreadable: ").append(e).append(')');
    }
    return out.toString();
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
