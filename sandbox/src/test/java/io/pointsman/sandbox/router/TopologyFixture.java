package io.pointsman.sandbox.router;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small Vitess-shaped topology written by hand for router and load tests: a fresh etcd root, and
 * shards that are databases on the shared test MariaDB (each tablet's {@code db_name_override}).
 * Every database it creates has a {@code customer (customer_id BIGINT PRIMARY KEY, email)} table
 * and is dropped on close.
 */
public final class TopologyFixture implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopologyFixture.class);
  public static final String CELL = "zone1";
  private static final List<TabletType> SERVED = List.of(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);

  private final Client etcd;
  private final TopoPaths paths;
  private final EtcdTopologyStore store;
  private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  private final List<String> databases = new ArrayList<>();
  private final Map<String, VSchema> vschemas = new TreeMap<>();
  private final Map<String, Map<String, String>> shardDbs = new LinkedHashMap<>();
  private final Map<String, List<String>> served = new LinkedHashMap<>();
  private final Map<String, List<ShardTabletControl>> disabled = new LinkedHashMap<>();
  private RoutingRules rules = RoutingRules.EMPTY;
  private long nextUid = 100;

  public TopologyFixture() {
    this.etcd = TestEtcd.client();
    this.paths = TestEtcd.freshPaths();
    this.store = new EtcdTopologyStore(etcd, paths);
  }

  public EtcdTopologyStore store() {
    return store;
  }

  /** A router over this topology with the test MariaDB's credentials. */
  public Router router(Duration bufferWindow) {
    return Router.start(RouterOptions.builder()
        .store(store)
        .cell(CELL)
        .mysqlUser(TestServices.mysqlUser())
        .mysqlPassword(TestServices.mysqlPassword())
        .bufferWindow(bufferWindow)
        .build());
  }

  /** An unsharded VSchema listing the customer table. */
  public static VSchema unshardedCustomer() {
    return new VSchema(false, Map.of(), Map.of("customer", VSchemaTable.plain()));
  }

  /** A sharded VSchema: customer with a {@code hash} vindex on customer_id, as the Vitess examples. */
  public static VSchema shardedCustomer() {
    return new VSchema(true, Map.of("hash", new Vindex("hash", Map.of(), null)),
        Map.of("customer", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", List.of())), null,
            null)));
  }

  /**
   * Creates a keyspace whose shards are new databases: Keyspace, VSchema, one Shard (serving, with a
   * primary) and one PRIMARY Tablet per shard. Call {@link #publishServing()} afterwards.
   *
   * @return shard name to database name
   */
  public Map<String, String> addKeyspace(String keyspace, VSchema vschema, String... shards) throws SQLException {
    store.create(store.keys().keyspace(keyspace), Keyspace.normal());
    store.create(store.keys().vschema(keyspace), vschema);
    vschemas.put(keyspace, vschema);
    shardDbs.put(keyspace, new LinkedHashMap<>());
    served.put(keyspace, List.of(shards));
    return addShards(keyspace, true, shards);
  }

  /**
   * Adds shards to a keyspace, each a new database with its primary, as Reshard's target shards:
   * their Shard records exist, but no SrvKeyspace partition references them until {@link #serve}.
   */
  public Map<String, String> addShards(String keyspace, boolean primaryServing, String... shards) throws SQLException {
    Map<String, String> dbs = new LinkedHashMap<>();
    for (String shard : shards) {
      String db = createDatabase(keyspace + "_" + shard.replace("-", "x"));
      TabletAlias alias = new TabletAlias(CELL, nextUid++);
      KeyRange range = KeyRange.ofShard(shard);
      store.create(store.keys().tablet(alias), new Tablet(alias, "localhost", Map.of(), keyspace, shard, range,
          TabletType.PRIMARY, db, TestServices.mysqlHost(), TestServices.mysqlPort()));
      store.create(store.keys().shard(keyspace, shard), Shard.of(range, alias, primaryServing));
      dbs.put(shard, db);
    }
    shardDbs.get(keyspace).putAll(dbs);
    return dbs;
  }

  /**
   * Makes exactly these shards serve the keyspace, as a Reshard write switch does: their Shard
   * records become primary-serving, the others not, and SrvKeyspace references only them.
   */
  public void serve(String keyspace, String... shards) {
    List<String> serving = List.of(shards);
    for (String shard : shardDbs.get(keyspace).keySet()) {
      store.update(store.keys().shard(keyspace, shard), s -> s.withPrimaryServing(serving.contains(shard)),
          TopologyStore.UNLOCKED);
    }
    served.put(keyspace, serving);
    writeSrvKeyspace(keyspace);
  }

  /** Writes every keyspace's SrvKeyspace (its serving shards, for all three types) and the SrvVSchema. */
  public void publishServing() {
    for (String ks : shardDbs.keySet()) {
      writeSrvKeyspace(ks);
    }
    writeSrvVSchema();
  }

  /** Sets the global RoutingRules and rebuilds SrvVSchema with them, as Vitess's switcher does. */
  public void setRoutingRules(Map<String, List<String>> byFromTable) {
    rules = RoutingRules.fromMap(byFromTable);
    store.upsert(store.keys().routingRules(), current -> rules, TopologyStore.UNLOCKED);
    writeSrvVSchema();
  }

  /** The nine rules MoveTables leaves for one table: every form of it to {@code to.table}. */
  public static Map<String, List<String>> allFormsTo(String table, String to, String... keyspaces) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    List<String> forms = new ArrayList<>(List.of(table));
    for (String ks : keyspaces) {
      forms.add(ks + "." + table);
    }
    for (String form : forms) {
      for (String suffix : List.of("", "@replica", "@rdonly")) {
        m.put(form + suffix, List.of(to + "." + table));
      }
    }
    return m;
  }

  public void denyTables(String keyspace, String shard, String... tables) {
    store.update(store.keys().shard(keyspace, shard),
        s -> s.withDeniedTables(TabletType.PRIMARY, List.of(tables), false), TopologyStore.UNLOCKED);
  }

  public void allowTables(String keyspace, String shard, String... tables) {
    store.update(store.keys().shard(keyspace, shard),
        s -> s.withDeniedTables(TabletType.PRIMARY, List.of(tables), true), TopologyStore.UNLOCKED);
  }

  /** Marks the shard's query service disabled (or not) in the keyspace's PRIMARY partition. */
  public void setQueryServiceDisabled(String keyspace, String shard, boolean off) {
    List<ShardTabletControl> controls = new ArrayList<>(disabled.getOrDefault(keyspace, List.of()));
    controls.removeIf(c -> c.name().equals(shard));
    if (off) {
      controls.add(new ShardTabletControl(shard, KeyRange.ofShard(shard), true));
    }
    disabled.put(keyspace, controls);
    writeSrvKeyspace(keyspace);
  }

  private void writeSrvKeyspace(String ks) {
    List<ShardReference> refs = served.get(ks).stream()
        .map(s -> new ShardReference(s, KeyRange.ofShard(s))).toList();
    List<KeyspacePartition> partitions = SERVED.stream()
        .map(t -> new KeyspacePartition(t, refs, t == TabletType.PRIMARY ? disabled.get(ks) : List.of()))
        .toList();
    store.upsert(store.keys().srvKeyspace(CELL, ks), c -> new SrvKeyspace(partitions), TopologyStore.UNLOCKED);
  }

  private void writeSrvVSchema() {
    store.upsert(store.keys().srvVSchema(CELL), c -> new SrvVSchema(vschemas, rules, null), TopologyStore.UNLOCKED);
  }

  public Connection admin() throws SQLException {
    return TestServices.mysqlConnection();
  }

  public void sql(String sql) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  public long count(String db, String where) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM `" + db + "`.customer WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private String createDatabase(String label) throws SQLException {
    String db = "pmr_" + label + "_" + suffix;
    sql("CREATE DATABASE `" + db + "`");
    databases.add(db);
    sql("CREATE TABLE `" + db + "`.customer (customer_id BIGINT NOT NULL PRIMARY KEY, email VARCHAR(128) NOT NULL)");
    return db;
  }

  @Override
  public void close() throws Exception {
    try {
      for (String db : databases) {
        sql("DROP DATABASE IF EXISTS `" + db + "`");
      }
      String base = paths.cellRootPrefix() + "/";
      etcd.getKVClient().delete(EtcdClients.bytes(base), DeleteOption.builder().isPrefix(true).build())
          .get(10, TimeUnit.SECONDS);
    } finally {
      closeEtcd();
    }
  }

  /**
   * Works around a race in {@code io.pointsman.engine.topo.EtcdRecordWatch} (reported, not ours to edit):
   * a watch closed while its own thread was opening the etcd watcher leaves that watcher open, and
   * closing the client then calls its listener, which hands work to the watch's terminated executor
   * and throws {@link RejectedExecutionException} out of {@link Client#close()}. The client is closed
   * by then; only the exception is dropped.
   */
  private void closeEtcd() {
    try {
      etcd.close();
    } catch (RejectedExecutionException e) {
      log.warn("etcd client closed; a watch listener rejected its close notification: {}", e.toString());
    }
  }
}
