package io.pointsman.sandbox.streams;

import io.etcd.jetcd.Client;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.MySqlFence;
import io.pointsman.engine.mysql.MySqlOptions;
import io.pointsman.engine.mysql.NewStream;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.SidecarSchema;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * A test's own slice of the shared MariaDB and etcd: databases with a random suffix standing for
 * shard primaries (dropped on close), a sidecar database of its own (every keyspace names it as
 * {@code sidecar_db_name}), a fresh topology root with Shard and Tablet records pointing at those
 * databases, and the runner under test.
 */
final class StreamTestBed implements AutoCloseable {
  static final String CELL = "zone1";

  final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  final String sidecar = "_vt_" + suffix;
  final Client etcd = TestEtcd.client();
  final EtcdTopologyStore topo = new EtcdTopologyStore(etcd, TestEtcd.freshPaths());
  final Connection admin;
  final ConnectionPools pools = new ConnectionPools(MySqlOptions.builder()
      .user(TestServices.mysqlUser())
      .password(TestServices.mysqlPassword())
      .tlsMode(MySqlOptions.TlsMode.DISABLED)
      .connectTimeout(Duration.ofSeconds(5))
      .build());
  private final SidecarSchema sidecarSchema = new SidecarSchema(pools);
  private final MySqlFence fence = new MySqlFence(pools, sidecarSchema);
  /** How workflows write and read streams: the runner must understand the one and feed the other. */
  final VReplicationStreams vreplication = new VReplicationStreams(pools, fence, sidecarSchema);
  final WriteBarrier writeBarrier = new WriteBarrier(pools, fence);
  /** Stream and barrier changes are fenced; a token of this test's own stands for the workflow's lock. */
  final LockSet locks = LockSet.of(new LockToken("/pointsman-test/" + suffix + "/global/keyspaces/customer/locks/1",
      "keyspace customer", 1, 1, Duration.ofMinutes(2), Instant.now()));
  private final List<String> databases = new ArrayList<>();
  private final Map<String, PrimaryEndpoint> endpoints = new HashMap<>();
  private final StreamTable streams = new StreamTable(sidecar);
  private StreamRunner runner;

  StreamTestBed() throws SQLException {
    admin = connect();
    exec("SET SESSION time_zone = '+00:00'");
    databases.add(sidecar);
  }

  static Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", TestServices.mysqlUser());
    p.setProperty("password", TestServices.mysqlPassword());
    p.setProperty("sslMode", "DISABLED");
    p.setProperty("allowPublicKeyRetrieval", "true");
    return DriverManager.getConnection(
        "jdbc:mysql://" + TestServices.mysqlHost() + ":" + TestServices.mysqlPort() + "/", p);
  }

  /** Creates a database for this test, e.g. {@code src} becomes {@code src_<suffix>}. */
  String database(String name) throws SQLException {
    String db = name + "_" + suffix;
    exec("CREATE DATABASE " + db);
    databases.add(db);
    return db;
  }

  /** A new database named after {@code name} and a keyspace's shard whose primary serves it; returns the database. */
  String primary(String name, String keyspace, String shard, long uid) throws SQLException {
    String db = database(name);
    shard(keyspace, shard, uid, db);
    return db;
  }

  /** A keyspace's shard whose primary tablet serves {@code db} on the shared MariaDB; creates the sidecar. */
  private void shard(String keyspace, String shard, long uid, String db) {
    if (topo.get(topo.keys().keyspace(keyspace)).isEmpty()) {
      topo.create(topo.keys().keyspace(keyspace), new Keyspace("NORMAL", null, "none", sidecar));
    }
    TabletAlias alias = new TabletAlias(CELL, uid);
    topo.create(topo.keys().tablet(alias), new Tablet(alias, "localhost", Map.of(), keyspace, shard,
        KeyRange.ofShard(shard), TabletType.PRIMARY, db, TestServices.mysqlHost(), TestServices.mysqlPort()));
    topo.create(topo.keys().shard(keyspace, shard), Shard.of(KeyRange.ofShard(shard), alias, true));
    PrimaryEndpoint endpoint = new PrimaryEndpoint(keyspace, shard, alias, TestServices.mysqlHost(),
        TestServices.mysqlPort(), db, sidecar);
    endpoints.put(db, endpoint);
    sidecarSchema.ensure(endpoint);
  }

  /** The primary serving a database made with {@link #shard}. */
  PrimaryEndpoint endpoint(String db) {
    return endpoints.get(db);
  }

  void vschema(String keyspace, VSchema vschema) {
    topo.create(topo.keys().vschema(keyspace), vschema);
  }

  /** Inserts a stream the way workflows do (io.pointsman.engine.mysql); returns its id. */
  long insertStream(String workflow, BinlogSource source, StreamState state, Position pos, String targetDb) {
    NewStream s = new NewStream(workflow, source, pos, Position.ZERO, state, targetDb, "", "", WorkflowType.MOVE_TABLES,
        WorkflowSubType.NONE, "{}");
    return vreplication.insert(endpoint(targetDb), List.of(s), locks).get(0);
  }

  /** Inserts a stream row with a {@code source} value no workflow would write; returns its id. */
  long insertRawStream(String workflow, String source, StreamState state, String pos, String targetDb)
      throws SQLException {
    try (PreparedStatement ps = admin.prepareStatement("INSERT INTO " + sidecar + ".vreplication"
        + " (workflow, source, pos, max_tps, max_replication_lag, cell, tablet_types, time_updated,"
        + " transaction_timestamp, state, message, db_name, workflow_type, options)"
        + " VALUES (?, ?, ?, 9223372036854775807, 9223372036854775807, '', 'primary', UNIX_TIMESTAMP(), 0, ?, '',"
        + " ?, 1, '{}')", Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, workflow);
      ps.setString(2, source);
      ps.setString(3, pos);
      ps.setString(4, state.column());
      ps.setString(5, targetDb);
      ps.executeUpdate();
      try (ResultSet rs = ps.getGeneratedKeys()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  StreamRow stream(long id) throws SQLException {
    return streams.read(admin, id).orElseThrow();
  }

  long column(long id, String column) throws SQLException {
    try (PreparedStatement ps = admin.prepareStatement("SELECT " + column + " FROM " + sidecar + ".vreplication WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  int copyStateRows(long id) throws SQLException {
    return streams.copyStateRows(admin, id);
  }

  void exec(String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = admin.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.execute();
    }
  }

  /** The first column of the first row of a query, or null when there is none. */
  String queryString(String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = admin.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** The server's binlog position now, as a stored stream position. */
  String position() throws SQLException {
    try (Statement st = admin.createStatement(); ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
      rs.next();
      return "MariaDB/" + rs.getString(1);
    }
  }

  /** Every row of a table, each column as the hex of its text-protocol bytes ("NULL" for null), by primary key. */
  List<List<String>> rows(String db, String table) throws SQLException {
    List<List<String>> out = new ArrayList<>();
    try (Statement st = admin.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + db + "." + table + " ORDER BY 1")) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          byte[] b = rs.getBytes(i);
          row.add(b == null ? "NULL" : HexFormat.of().formatHex(b));
        }
        out.add(row);
      }
    }
    return out;
  }

  /** The first column of every row as a number (the tables here key on a bigint). */
  List<Long> ids(String db, String table) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (Statement st = admin.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + db + "." + table + " ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
    }
    return out;
  }

  StreamRunner startRunner() {
    runner = StreamRunner.start(StreamRunnerOptions.builder()
        .topology(topo)
        .mysqlCredentials(TestServices.mysqlUser(), TestServices.mysqlPassword())
        .pollInterval(Duration.ofMillis(100))
        .heartbeatInterval(Duration.ofMillis(500))
        .copyBatchSize(50)
        .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .build());
    return runner;
  }

  @Override
  public void close() throws SQLException {
    if (runner != null) {
      runner.close();
    }
    try {
      for (String db : databases) {
        exec("DROP DATABASE IF EXISTS " + db);
      }
    } finally {
      pools.close();
      admin.close();
      etcd.close();
    }
  }
}
