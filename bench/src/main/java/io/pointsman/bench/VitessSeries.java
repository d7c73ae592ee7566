package io.pointsman.bench;

import io.pointsman.api.model.Direction;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.client.TemporalOptions;
import io.pointsman.engine.etcd.EtcdOptions;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.primary.PrimaryBackend;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.sandbox.load.LoadOptions;
import io.pointsman.sandbox.load.LoadRecord;
import io.pointsman.sandbox.load.LoadWriter;
import io.pointsman.sandbox.load.VtgateWrites;
import io.pointsman.sandbox.load.WriteFactory;
import io.pointsman.worker.DevMode;
import io.pointsman.worker.WorkerConfig;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The anchor: the same MoveTables write switch done by {@code vtctldclient} and by pointsman on the
 * same real Vitess 24 cluster, under the same constant write load through vtgate (write buffering
 * on), alternating: vtctldclient forward and back, then pointsman forward and back, {@code cycles}
 * times per rate. The cluster and the MoveTables {@code commerce2customer} (copied, reads not yet
 * switched) are the caller's ({@code scripts/bench.sh --vitess} starts them); pointsman runs as dev
 * mode's worker on the cluster's etcd, reaching the tablets through their tablet-manager RPCs.
 */
final class VitessSeries implements AutoCloseable {
  static final String WORKFLOW = "commerce2customer";
  static final String TARGET = "customer";
  private static final Duration SETTLE = Duration.ofSeconds(1);
  /** vtctldclient's switch each way, then pointsman's. */
  private static final int SWITCHES_PER_CYCLE = 2 * Direction.values().length;
  /** vtgate's --buffer-max-failover-duration (20 s) and a statement's time. */
  private static final Duration LONGEST_ANSWER = Duration.ofSeconds(30);
  /** Keys read back a query: well under vttablet's 10,000-row limit. */
  private static final long READ_PAGE = 5_000;

  /** Where the cluster is, from {@code scripts/vitess-cluster.sh}'s variables. */
  record Cluster(String etcd, String vtctld, int vtgateMysqlPort, Path vtctldclient, String dbPassword) {
    static Cluster fromEnv(Map<String, String> env) {
      return new Cluster(require(env, "POINTSMAN_VITESS_ETCD"), require(env, "POINTSMAN_VTCTLD_GRPC"),
          Integer.parseInt(require(env, "POINTSMAN_VTGATE_MYSQL_PORT")),
          Path.of(require(env, "POINTSMAN_VITESS_BIN")).resolve("vtctldclient"),
          require(env, "POINTSMAN_VITESS_DB_PASSWORD"));
    }

    @Override
    public String toString() {
      return "Cluster[etcd=" + etcd + ", vtctld=" + vtctld + ", vtgate MySQL port " + vtgateMysqlPort + "]";
    }

    private static String require(Map<String, String> env, String name) {
      String v = env.get(name);
      if (v == null || v.isBlank()) {
        throw new IllegalArgumentException("--vitess needs " + name + " (run it as ./scripts/bench.sh --vitess, "
            + "which starts the cluster)");
      }
      return v;
    }
  }

  /** The switches at one rate, and what the load saw of every write of the block. */
  record Block(double rate, double achievedRate, List<SwitchMeasurement> switches, long acknowledged,
      List<Long> lost, List<Long> duplicated) {
    List<SwitchMeasurement> by(String executor) {
      return switches.stream().filter(s -> s.executor().equals(executor)).toList();
    }
  }

  private final Cluster cluster;
  private final DevMode dev;
  private final TemporalSwitch pointsman;
  private final VtctldSwitch vtctld;
  private final Consumer<String> progress;

  /**
   * @param barrierBehindTablets whether pointsman's worker also raises its MySQL barrier behind
   *     vttablet's wall ({@code POINTSMAN_TABLET_WRITE_BARRIER}), to measure what the second wall costs
   * @param temporalServer the Temporal CLI whose dev server (default settings, its database in
   *     {@code temporalDir}) the worker runs on; empty for the SDK's test server
   */
  VitessSeries(Cluster cluster, boolean barrierBehindTablets, Optional<Path> temporalServer, Path temporalDir,
      Consumer<String> progress) {
    this.cluster = cluster;
    this.progress = progress;
    WorkerConfig config = new WorkerConfig(TemporalOptions.builder().build(),
        EtcdOptions.builder().endpoints(cluster.etcd()).build(), TopoPaths.defaults(),
        dba(cluster), 0, Duration.ofSeconds(10), List.of(), TabletRpcOptions.DEFAULTS, PrimaryBackend.TABLET,
        barrierBehindTablets);
    this.dev = BenchWorld.devMode(config, temporalServer, temporalDir);
    this.pointsman = new TemporalSwitch(dev.worker().temporal().client());
    this.vtctld = new VtctldSwitch(cluster.vtctldclient(), cluster.vtctld());
  }

  /** The cluster's DBA account: only the second wall (the MySQL barrier) connects with it. */
  private static MySqlOptions dba(Cluster cluster) {
    return MySqlOptions.builder().user("vt_dba").password(cluster.dbPassword())
        .tlsMode(MySqlOptions.TlsMode.DISABLED).allowPublicKeyRetrieval(true).build();
  }

  /** Switches reads with pointsman, so that the series moves writes only. */
  void prepare() {
    dev.worker().temporal().client().newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
            .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId("bench-vitess-reads").build())
        .switchTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET)
            .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
  }

  Block measure(double rate, int cycles, long firstKey) throws InterruptedException {
    List<SwitchMeasurement> switches = new ArrayList<>();
    LoadWriter load;
    long blockStart;
    long blockEnd;
    try (VtgateWrites target = new VtgateWrites("127.0.0.1", cluster.vtgateMysqlPort(), LONGEST_ANSWER)) {
      load = LoadWriter.start(target, LoadOptions.builder()
          .ratePerSecond(rate)
          .writers((int) Math.min(1000, Math.max(16, Math.ceil(rate * 1.5))))
          .duration(Duration.ofHours(2))
          .writes(WriteFactory.customerInserts("customer", firstKey))
          .build());
      blockStart = System.nanoTime();
      try {
        Thread.sleep(SETTLE.toMillis());
        for (int i = 0; i < cycles; i++) {
          for (boolean viaPointsman : new boolean[] {false, true}) {
            for (Direction d : Direction.values()) {
              SwitchRun run = viaPointsman
                  ? pointsman.switchWrites(TARGET, WORKFLOW, d, SwitchSeries.LOCK_TTL)
                  : vtctld.switchWrites(TARGET, WORKFLOW, d);
              switches.add(new SwitchMeasurement(run, null, Optional.empty(), Optional.empty(), Optional.empty()));
              progress.accept(String.format("vitess %.0f/s cycle %d: %s %s in %d ms%s", rate, i + 1, run.executor(),
                  d, run.took().toMillis(), steps(run)));
              Thread.sleep(SETTLE.toMillis());
              awaitAnswered(load, System.nanoTime());
            }
          }
        }
      } finally {
        blockEnd = System.nanoTime();
        load.close();
      }
    }
    List<LoadRecord> records = load.loadLog().records();
    List<SwitchMeasurement> measured = SwitchMeasurement.withWindows(switches, records);
    // each switch's own window, in order, so an outlier can be traced to its switch (and its logs)
    for (int i = 0; i < measured.size(); i++) {
      SwitchMeasurement m = measured.get(i);
      progress.accept(String.format("vitess %.0f/s switch %d (cycle %d): %s %s W %d ms, B %d ms, E %d", rate, i + 1,
          i / SWITCHES_PER_CYCLE + 1, m.run().executor(), m.run().direction(), m.window().longestAckGap().toMillis(),
          m.window().longestWrite().toMillis(), m.window().errors()));
    }
    List<Long> acked = records.stream().filter(LoadRecord::acknowledged).map(LoadRecord::key).toList();
    long lastKey = records.stream().mapToLong(LoadRecord::key).max().orElse(firstKey);
    Map<Long, Integer> found = readBack(firstKey, lastKey);
    List<Long> lost = acked.stream().filter(k -> !found.containsKey(k)).toList();
    List<Long> duplicated = found.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
    long acks = records.stream().filter(r -> r.acknowledged() && r.ackNanos() >= blockStart && r.ackNanos() <= blockEnd)
        .count();
    return new Block(rate, acks / ((blockEnd - blockStart) / 1e9), measured, acked.size(), lost, duplicated);
  }

  /**
   * Waits until the writes sent by {@code sentBy} are answered, at most {@link #LONGEST_ANSWER}.
   * vtgate may hold a write in its buffer for seconds after vtctldclient returned; the next switch,
   * pointsman's or vtctld's, must not start with it still held, or that write's wait and the gap
   * it leaves would count against the next switch instead of the one that caused them.
   */
  private static void awaitAnswered(LoadWriter load, long sentBy) throws InterruptedException {
    long deadline = System.nanoTime() + LONGEST_ANSWER.toNanos();
    while (!load.answeredAllSentBy(sentBy) && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
  }

  /** pointsman's steps inside the write window, for the progress line; vtctld reports none. */
  private static String steps(SwitchRun run) {
    if (run.steps().isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder(":");
    for (StepTiming s : run.steps()) {
      b.append(' ').append(s.name()).append(' ').append((s.endNanos() - s.startNanos()) / 1_000_000);
    }
    return b.toString();
  }

  /**
   * Every row the load wrote, read back through vtgate where the routing serves them now, by key;
   * in pages of key ranges, as vttablet returns at most 10,000 rows a query.
   */
  private Map<Long, Integer> readBack(long firstKey, long lastKey) {
    Map<Long, Integer> out = new HashMap<>();
    String url = "jdbc:mysql://127.0.0.1:" + cluster.vtgateMysqlPort() + "/?sslMode=DISABLED";
    try (Connection c = DriverManager.getConnection(url, "bench", "");
        PreparedStatement ps = c.prepareStatement("select customer_id from customer where customer_id between ? and ?")) {
      for (long from = firstKey; from <= lastKey; from += READ_PAGE) {
        ps.setLong(1, from);
        ps.setLong(2, Math.min(lastKey, from + READ_PAGE - 1));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.merge(rs.getLong(1), 1, Integer::sum);
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading the load's rows back through vtgate failed: " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  public void close() {
    dev.close();
  }
}
