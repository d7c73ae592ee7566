package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BaseTables;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.ConnectionPools;
import io.pointsman.engine.mysql.MySqlFence;
import io.pointsman.engine.mysql.SidecarSchema;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.VReplicationStreams;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.Tablet;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole sandbox, brought up once with its own etcd and seven MariaDB servers: the records and
 * rows {@code up} leaves, then what MoveTables create and Reshard create add. The two creates run
 * in order on the same sandbox, as they would in the demo.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxTest {
  private static final String CELL = "zone1";

  private Path dataDir;
  private Sandbox sandbox;
  private TopologyStore store;
  private TopoKeys keys;
  private ConnectionPools pools;
  private VReplicationStreams repository;

  @BeforeAll
  void up(@TempDir Path dataDir) {
    this.dataDir = dataDir;
    sandbox = Sandbox.up(SandboxOptions.builder()
        .dataDir(dataDir)
        .basePort(0)
        .etcdPorts(0, 0)
        .stopOnJvmExit(true)
        .build());
    store = sandbox.store();
    keys = store.keys();
    pools = new ConnectionPools(sandbox.mysqlOptions());
    SidecarSchema schema = new SidecarSchema(pools);
    repository = new VReplicationStreams(pools, new MySqlFence(pools, schema), schema);
  }

  @AfterAll
  void down() {
    try {
      if (pools != null) {
        pools.close();
      }
      if (sandbox != null) {
        sandbox.down();
      }
    } finally {
      ServerProcesses.stopAll(dataDir);
    }
  }

  @Test
  @Order(1)
  void upCreatesTheCellKeyspacesShardsAndTablets() {
    assertThat(store.listCells()).containsExactly(CELL);
    assertThat(store.get(keys.cellInfo(CELL)).map(Versioned::value))
        .contains(new CellInfo(sandbox.etcdEndpoint(), "/vitess/zone1"));
    assertThat(store.listKeyspaces()).containsExactly("commerce", "customer");
    assertThat(store.getRequired(keys.keyspace("customer")).value().sidecarDb()).isEqualTo("_vt");
    assertThat(store.listShards("commerce")).containsExactly("0");
    assertThat(store.listShards("customer"))
        .containsExactlyInAnyOrder("-80", "80-", "-40", "40-80", "80-c0", "c0-");

    for (RunningPrimary p : sandbox.primaries()) {
      Shard shard = store.getRequired(keys.shard(p.primary().keyspace(), p.primary().shard())).value();
      assertThat(shard.primaryAlias()).isEqualTo(p.alias());
      assertThat(shard.keyRange()).isEqualTo(KeyRange.ofShard(p.primary().shard()));
      assertThat(shard.isPrimaryServing())
          .as("serving %s", p.primary())
          .isEqualTo(SandboxLayout.SERVING_PRIMARIES.contains(p.primary()));
      assertThat(shard.tabletControls()).isEmpty();

      Tablet tablet = store.getRequired(keys.tablet(p.alias())).value();
      assertThat(tablet.type()).isEqualTo(TabletType.PRIMARY);
      assertThat(tablet.keyspace()).isEqualTo(p.primary().keyspace());
      assertThat(tablet.shard()).isEqualTo(p.primary().shard());
      assertThat(tablet.mysqlHostname()).isEqualTo("127.0.0.1");
      assertThat(tablet.mysqlPort()).isEqualTo(p.port());
      assertThat(tablet.dbName()).isEqualTo("vt_" + p.primary().keyspace());
    }
    assertThat(store.listTablets(CELL)).containsExactlyInAnyOrder(
        new TabletAlias(CELL, 100), new TabletAlias(CELL, 300), new TabletAlias(CELL, 400),
        new TabletAlias(CELL, 500), new TabletAlias(CELL, 600), new TabletAlias(CELL, 700),
        new TabletAlias(CELL, 800));
  }

  @Test
  @Order(2)
  void upCreatesVSchemasAndTheServingGraph() {
    assertThat(store.getRequired(keys.vschema("commerce")).value()).isEqualTo(SandboxLayout.commerceVSchema());
    var customer = store.getRequired(keys.vschema("customer")).value();
    assertThat(customer.sharded()).isTrue();
    assertThat(customer.vindexes().get("hash").type()).isEqualTo("hash");
    assertThat(customer.tables()).containsOnlyKeys("customer", "corder");
    assertThat(customer.tables().get("corder").columnVindexes().get(0).column()).isEqualTo("customer_id");

    SrvKeyspace srvCustomer = store.getRequired(keys.srvKeyspace(CELL, "customer")).value();
    assertThat(srvCustomer.partitions()).extracting(KeyspacePartition::servedType)
        .containsExactly(TabletType.PRIMARY, TabletType.REPLICA, TabletType.RDONLY);
    for (KeyspacePartition p : srvCustomer.partitions()) {
      assertThat(p.shardReferences()).containsExactly(
          new ShardReference("-80", KeyRange.ofShard("-80")), new ShardReference("80-", KeyRange.ofShard("80-")));
      assertThat(p.shardTabletControls()).isEmpty();
    }
    SrvKeyspace srvCommerce = store.getRequired(keys.srvKeyspace(CELL, "commerce")).value();
    assertThat(srvCommerce.partition(TabletType.PRIMARY).orElseThrow().shardReferences())
        .containsExactly(new ShardReference("0", null));

    SrvVSchema srv = store.getRequired(keys.srvVSchema(CELL)).value();
    assertThat(srv.keyspaces()).containsOnlyKeys("commerce", "customer");
    assertThat(srv.keyspaces().get("customer")).isEqualTo(customer);
    assertThat(srv.routingRules().rules()).isEmpty();
    assertThat(store.get(keys.routingRules())).isEmpty();
  }

  @Test
  @Order(3)
  void upLoadsTheSchemaSampleRowsAndSidecarTables() throws SQLException {
    try (Connection c = sandbox.connect("commerce", "0")) {
      assertThat(count(c, "vt_commerce.product")).isEqualTo(2);
      assertThat(count(c, "vt_commerce.customer")).isEqualTo(5);
      assertThat(count(c, "vt_commerce.corder")).isEqualTo(5);
      assertThat(variable(c, "binlog_format")).isEqualTo("ROW");
      assertThat(variable(c, "gtid_strict_mode")).isEqualTo("1");
      assertThat(variable(c, "log_bin")).isEqualTo("1");
    }
    List<String> serverIds = new ArrayList<>();
    for (RunningPrimary p : sandbox.primaries()) {
      try (Connection c = p.connect(sandbox.options().credentials())) {
        serverIds.add(variable(c, "server_id"));
        assertThat(tables(c, "_vt")).containsAll(SidecarSchema.tables());
        List<String> appTables = tables(c, p.primary().dbName());
        if (p.primary().keyspace().equals("commerce")) {
          assertThat(appTables).containsExactlyInAnyOrder("product", "customer", "corder");
        } else if (SandboxLayout.SERVING_PRIMARIES.contains(p.primary())) {
          assertThat(appTables).containsExactlyInAnyOrder("customer", "corder");
          assertThat(count(c, "vt_customer.customer")).isZero();
        } else {
          assertThat(appTables).as("Reshard target %s before Reshard create", p.primary()).isEmpty();
        }
      }
    }
    assertThat(serverIds).containsExactly("100", "300", "400", "500", "600", "700", "800");
  }

  @Test
  @Order(4)
  void moveTablesCreateLeavesRulesDeniedTablesAndStreams() throws SQLException {
    SrvKeyspace srvBefore = store.getRequired(keys.srvKeyspace(CELL, "customer")).value();
    CreatedWorkflow wf = sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox());

    Map<String, List<String>> rules = store.getRequired(keys.routingRules()).value().asMap();
    for (String t : List.of("customer", "corder")) {
      for (String suffix : List.of("", "@replica", "@rdonly")) {
        for (String from : List.of(t, "customer." + t, "commerce." + t)) {
          assertThat(rules).containsEntry(from + suffix, List.of("commerce." + t));
        }
      }
    }
    assertThat(rules).hasSize(18);
    assertThat(store.getRequired(keys.srvVSchema(CELL)).value().routingRules())
        .isEqualTo(new RoutingRules(store.getRequired(keys.routingRules()).value().rules()));

    for (String shard : List.of("-80", "80-")) {
      assertThat(store.getRequired(keys.shard("customer", shard)).value().deniedTables(TabletType.PRIMARY))
          .containsExactlyInAnyOrder("customer", "corder");
    }
    assertThat(store.getRequired(keys.shard("commerce", "0")).value().tabletControls()).isEmpty();
    assertThat(store.getRequired(keys.shard("customer", "-40")).value().tabletControls()).isEmpty();
    assertThat(store.getRequired(keys.srvKeyspace(CELL, "customer")).value()).isEqualTo(srvBefore);

    assertThat(wf.streams()).extracting(CreatedWorkflow.Stream::targetShard).containsExactly("-80", "80-");
    for (String shard : List.of("-80", "80-")) {
      try (Connection c = sandbox.connect("customer", shard)) {
        List<VReplicationStream> streams = VReplicationTable.read(c, "_vt", "commerce2customer");
        assertThat(streams).hasSize(1);
        VReplicationStream s = streams.get(0);
        assertThat(s.state()).isEqualTo("Init");
        assertThat(s.pos()).isEmpty();
        assertThat(s.dbName()).isEqualTo("vt_customer");
        assertThat(s.workflowType()).isEqualTo(WorkflowType.MOVE_TABLES);
        assertThat(s.cell()).isEmpty();
        assertThat(s.tabletTypes()).isEmpty();
        BinlogSource expected = BinlogSource.of("commerce", "0", BinlogSource.Filter.of(
            new BinlogSource.Rule("corder",
                "select * from corder where in_keyrange(customer_id, 'customer.hash', '" + shard + "')"),
            new BinlogSource.Rule("customer",
                "select * from customer where in_keyrange(customer_id, 'customer.hash', '" + shard + "')")));
        assertThat(s.source()).isEqualTo(expected);
        String range = "in_keyrange(customer_id, 'customer.hash', '" + shard + "')";
        // Vitess's text format of binlogdata.BinlogSource, as vtctld's MoveTables create stores it.
        assertThat(rawSource(c, s.id())).isEqualTo("keyspace: \"commerce\" shard: \"0\" filter {"
            + " rules { match: \"corder\" filter: \"select * from corder where " + range + "\" }"
            + " rules { match: \"customer\" filter: \"select * from customer where " + range + "\" } }");

        // The workflows read streams through io.pointsman.engine.mysql: the rows must read back there too.
        List<Stream> shared = repository.read(sandbox.primary("customer", shard).endpoint(), "commerce2customer");
        assertThat(shared).singleElement().satisfies(r -> {
          assertThat(r.state()).isEqualTo(StreamState.INIT);
          assertThat(r.source()).isEqualTo(expected);
          assertThat(r.workflowType()).isEqualTo(WorkflowType.MOVE_TABLES);
          assertThat(r.pos().isZero()).isTrue();
          assertThat(r.dbName()).isEqualTo("vt_customer");
        });
      }
    }
    assertThatThrownBy(() -> sandbox.moveTablesCreator().create(MoveTablesSpec.sandbox()))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS))
        .hasMessageContaining("commerce2customer already exists");
  }

  @Test
  @Order(5)
  void reshardCreateLeavesTargetsNotServingAndTheServingGraphUnchanged() throws SQLException {
    SrvKeyspace srvBefore = store.getRequired(keys.srvKeyspace(CELL, "customer")).value();
    SrvVSchema srvVSchemaBefore = store.getRequired(keys.srvVSchema(CELL)).value();

    CreatedWorkflow wf = sandbox.reshardCreator().create(ReshardSpec.sandbox());

    assertThat(store.getRequired(keys.srvKeyspace(CELL, "customer")).value()).isEqualTo(srvBefore);
    assertThat(store.getRequired(keys.srvVSchema(CELL)).value()).isEqualTo(srvVSchemaBefore);
    for (String shard : SandboxLayout.RESHARD_TARGET_SHARDS) {
      assertThat(store.getRequired(keys.shard("customer", shard)).value().isPrimaryServing()).isFalse();
    }
    for (String shard : SandboxLayout.RESHARD_SOURCE_SHARDS) {
      assertThat(store.getRequired(keys.shard("customer", shard)).value().isPrimaryServing()).isTrue();
    }
    assertThat(wf.type()).isEqualTo(WorkflowType.RESHARD);
    assertThat(wf.streams()).extracting(s -> s.targetShard() + "<" + s.source().shard())
        .containsExactly("-40<-80", "40-80<-80", "80-c0<80-", "c0-<80-");

    Map<String, String> sourceOf = Map.of("-40", "-80", "40-80", "-80", "80-c0", "80-", "c0-", "80-");
    for (String shard : SandboxLayout.RESHARD_TARGET_SHARDS) {
      try (Connection c = sandbox.connect("customer", shard)) {
        List<VReplicationStream> streams = VReplicationTable.readAll(c, "_vt");
        assertThat(streams).hasSize(1);
        VReplicationStream s = streams.get(0);
        assertThat(s.workflow()).isEqualTo("cust2cust");
        assertThat(s.state()).isEqualTo("Init");
        assertThat(s.workflowType()).isEqualTo(WorkflowType.RESHARD);
        assertThat(s.source()).isEqualTo(BinlogSource.of("customer", sourceOf.get(shard),
            BinlogSource.Filter.of(new BinlogSource.Rule("/.*", shard))));
        assertThat(tables(c, "vt_customer")).as("schema copied to %s", shard)
            .containsExactlyInAnyOrder("customer", "corder");
      }
    }
    assertThatThrownBy(() -> sandbox.reshardCreator().create(ReshardSpec.sandbox()))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
  }

  @Test
  @Order(6)
  void reshardCreateRefusesAServingTargetAndAGap() {
    ReshardCreator creator = sandbox.reshardCreator();
    assertThatThrownBy(() -> creator.create(new ReshardSpec("other", "customer", List.of("-80"), List.of("80-"), true)))
        .hasMessageContaining("target shard customer/80- is in serving state");
    assertThatThrownBy(() -> creator.create(
            new ReshardSpec("other", "customer", List.of("-80", "80-"), List.of("-40", "80-c0", "c0-"), true)))
        .hasMessageContaining("not contiguous");
  }

  private static long count(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String variable(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL." + name)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static List<String> tables(Connection c, String db) throws SQLException {
    return BaseTables.of(c, db);
  }

  private static String rawSource(Connection c, long id) throws SQLException {
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT source FROM _vt.vreplication WHERE id = " + id)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
