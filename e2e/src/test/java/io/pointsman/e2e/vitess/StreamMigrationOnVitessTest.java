package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Vitess's stream migration, done by pointsman on a real Vitess 24 cluster: a Materialize workflow
 * ({@code mat}, commerce.product into customer.product_copy) runs on the primary of customer/0 when
 * pointsman switches the Reshard of customer from {@code 0} to {@code -80,80-}. The switch stops
 * {@code mat} there, recreates it on the new shards with their key ranges, names it in the journal and
 * starts it there once routing moved; the rows written into commerce afterwards reach product_copy
 * through the new shards. ReverseTraffic moves it back, and vtctldclient's own switch afterwards
 * migrates it forward again from what pointsman left. A MoveTables into customer, switched by pointsman
 * and not completed, moves along FROZEN, and completes from the new shards.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StreamMigrationOnVitessTest {
  private static final String WORKFLOW = "cust2cust";
  private static final String MATERIALIZE = "mat";
  private static final String MOVED = "commerce2customer";
  private static final List<TabletType> ALL = SwitchTrafficRequest.ALL_TABLET_TYPES;
  private static final AtomicLong NEXT_PRODUCT = new AtomicLong(100);

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(StreamMigrationOnVitessTest::startCluster);

  /** commerce (unsharded) and customer on shard 0 with a Materialize into it, resharded into -80,80-. */
  private static VitessCluster startCluster() throws Exception {
    return VitessCluster.start(Map.of("POINTSMAN_VITESS_TABLETS_SPEC",
        "100:commerce:0 200:customer:0 300:customer:-80 400:customer:80-"), StreamMigrationOnVitessTest::prepare);
  }

  private static void prepare(VitessCluster cluster) throws Exception {
    String product = "create table %s(pid bigint not null, name varchar(64), primary key(pid)) engine=InnoDB;";
    String orders = "create table orders(oid bigint not null, pid bigint, primary key(oid)) engine=InnoDB;";
    cluster.vtctldclient("ApplySchema", "--sql-file", cluster.setupFile("commerce.sql",
        product.formatted("product") + orders).toString(), "commerce");
    cluster.vtctldclient("ApplyVSchema", "--vschema-file", cluster.setupFile("commerce.json",
        "{\"tables\": {\"product\": {}, \"orders\": {}}}").toString(), "commerce");
    // every customer shard gets every table, so the Reshard copies rows only (--skip-schema-copy)
    cluster.vtctldclient("ApplySchema", "--sql-file", cluster.setupFile("customer.sql",
        "create table customer(customer_id bigint not null, email varchar(128), primary key(customer_id))"
            + " engine=InnoDB;" + product.formatted("product_copy") + orders).toString(), "customer");
    cluster.vtctldclient("ApplyVSchema", "--vschema-file", cluster.setupFile("customer.json", """
        {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
         "tables": {"customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"}]},
                    "product_copy": {"column_vindexes": [{"column": "pid", "name": "hash"}]},
                    "orders": {"column_vindexes": [{"column": "oid", "name": "hash"}]}}}
        """).toString(), "customer");
    cluster.execute("commerce", "insert into product(pid, name) values (1, 'one'), (2, 'two'), (3, 'three')",
        "insert into orders(oid, pid) values (10, 1), (11, 2)");
    // a MoveTables into customer, which the second test switches (its streams on customer/0 turn FROZEN)
    cluster.vtctldclientOnceEnginesOpen("MoveTables", "--workflow", MOVED, "--target-keyspace", "customer", "create",
        "--source-keyspace", "commerce", "--tables", "orders");
    await("the MoveTables copied").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.allStreams("MoveTables", "customer", MOVED, 1, "Running"));
    cluster.execute("customer", "insert into customer(customer_id, email) values (1, 'alice@example.com')");
    cluster.vtctldclientOnceEnginesOpen("Materialize", "--workflow", MATERIALIZE, "--target-keyspace", "customer", "create",
        "--source-keyspace", "commerce", "--table-settings",
        "[{\"target_table\": \"product_copy\", \"source_expression\": \"select pid, name from product\"}]");
    await("the Materialize copied and runs").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> materializeStreams(cluster).stream().anyMatch(s -> s.path("state").asText().equals("Running"))
            && productCopy(cluster).size() == 3);
    cluster.vtctldclientOnceEnginesOpen("Reshard", "--workflow", WORKFLOW, "--target-keyspace", "customer", "create",
        "--source-shards", "0", "--target-shards", "-80,80-", "--skip-schema-copy");
    await("Reshard copy done, streams Running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.allStreams("Reshard", "customer", WORKFLOW, 2, "Running"));
  }

  @Test
  @Order(1)
  void theDryRunShowsTheStreamsItWouldMigrateAndChangesNothing() throws Exception {
    ActionResult plan = switchTraffic(SwitchTrafficRequest.of(WORKFLOW, "customer").withDryRun(true));
    List<String> lines = plan.dryRunResults();
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Stop streams on keyspace customer: [id:")
        .contains(";shard:0;workflow:mat;position:"));
    assertThat(lines).contains("Migrate streams to customer:");
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Create target streams (as stopped): [")
        .contains("keyspace:customer;shard:-80;workflow:mat").contains("keyspace:customer;shard:80-;workflow:mat"));
    assertThat(streamShards()).containsExactly("0");
  }

  @Test
  @Order(2)
  void pointsmanMigratesTheMaterializeToTheNewShards() throws Exception {
    // vtctldclient refuses this switch while the Reshard's shards exist ("topo shards not in switch
    // command: [-80 80-]"); pointsman compares serving shards only, as the Reshard is not switched yet
    assertThat(worker().switchTraffic("customer", MOVED, ALL).currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(worker().switchTraffic("customer", WORKFLOW, ALL).currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(cluster().trafficState("Reshard", "customer", WORKFLOW)).isEqualTo(ALL_SWITCHED);
    assertThat(streamShards()).containsExactly("-80", "80-");
    await("the migrated streams run").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
        .until(() -> materializeStreams(cluster()).stream().allMatch(s -> s.path("state").asText().equals("Running")));
    for (JsonNode s : materializeStreams(cluster())) {
      String filter = s.path("binlog_source").path("filter").path("rules").get(0).path("filter").asText();
      assertThat(filter).as("the stream on " + s.path("shard").asText() + " takes its own key range")
          .contains("'" + s.path("shard").asText() + "'");
    }
    assertThat(journalOn(200)).as("the journal on customer/0 names the migrated workflows")
        .contains("source_workflows: \"commerce2customer\" source_workflows: \"mat\"");
    rowsWrittenToCommerceReachTheCopy();
  }

  /** The switched MoveTables moved with the Reshard FROZEN, so it completes from the new shards. */
  @Test
  @Order(3)
  void theSwitchedMoveTablesMovedFrozenAndCompletesFromTheNewShards() throws Exception {
    List<JsonNode> moved = workflowStreams(cluster(), MOVED);
    assertThat(moved).extracting(s -> s.path("shard").asText()).containsExactlyInAnyOrder("-80", "80-");
    assertThat(moved).allSatisfy(s -> assertThat(s.path("message").asText()).isEqualTo("FROZEN"));
    assertThat(worker().complete("customer", MOVED).summary())
        .isEqualTo("Successfully completed the " + MOVED + " workflow in the customer keyspace");
    List<String> left = new ArrayList<>();
    cluster().vtctldclientJson("GetWorkflows", "customer").path("workflows")
        .forEach(wf -> left.add(wf.path("name").asText()));
    assertThat(left).doesNotContain(MOVED).contains(MATERIALIZE);
    assertThat(cluster().query("customer", "select oid from orders order by oid"))
        .containsExactly(List.of("10"), List.of("11"));
  }

  @Test
  @Order(4)
  void pointsmanReversesAndTheMaterializeGoesBackToShardZero() throws Exception {
    assertThat(worker().reverseTraffic("customer", WORKFLOW, ALL).currentState()).isEqualTo(NOT_SWITCHED);
    assertThat(streamShards()).containsExactly("0");
    await("the stream runs again on 0").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
        .until(() -> materializeStreams(cluster()).stream().allMatch(s -> s.path("state").asText().equals("Running")));
    rowsWrittenToCommerceReachTheCopy();
  }

  @Test
  @Order(5)
  void vtctldclientSwitchesForwardAgainFromWhatPointsmanLeft() throws Exception {
    cluster().vtctldclient("Reshard", "--workflow", WORKFLOW, "--target-keyspace", "customer", "switchtraffic");
    assertThat(cluster().trafficState("Reshard", "customer", WORKFLOW)).isEqualTo(ALL_SWITCHED);
    assertThat(streamShards()).containsExactly("-80", "80-");
    rowsWrittenToCommerceReachTheCopy();
  }

  /** A new product in commerce shows up in customer.product_copy, read through vtgate. */
  private static void rowsWrittenToCommerceReachTheCopy() throws Exception {
    long pid = NEXT_PRODUCT.incrementAndGet();
    cluster().execute("commerce", "insert into product(pid, name) values (" + pid + ", 'p" + pid + "')");
    await("product " + pid + " materialized").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
        .until(() -> productCopy(cluster()).contains(pid));
    assertThat(productCopy(cluster())).as("each product exactly once").doesNotHaveDuplicates();
  }

  private static List<Long> productCopy(VitessCluster cluster) throws Exception {
    List<Long> pids = new ArrayList<>();
    for (List<String> row : cluster.query("customer", "select pid from product_copy order by pid")) {
      pids.add(Long.parseLong(row.get(0)));
    }
    return pids;
  }

  /** The shards whose primaries run a stream of the Materialize, as vtctld reports them. */
  private static List<String> streamShards() {
    return materializeStreams(cluster()).stream().map(s -> s.path("shard").asText()).sorted().toList();
  }

  private static List<JsonNode> materializeStreams(VitessCluster cluster) {
    return workflowStreams(cluster, MATERIALIZE);
  }

  /** A customer workflow's streams as vtctld shows them; none once it is gone. */
  private static List<JsonNode> workflowStreams(VitessCluster cluster, String workflow) {
    JsonNode show = cluster.vtctldclientJson("Workflow", "--keyspace", "customer", "show", "--workflow", workflow,
        "--include-logs=false");
    List<JsonNode> streams = new ArrayList<>();
    for (JsonNode wf : show.path("workflows")) {
      for (JsonNode shardStreams : wf.path("shard_streams")) {
        shardStreams.path("streams").forEach(streams::add);
      }
    }
    return streams;
  }

  /** The journal rows on a tablet's MariaDB, as text. */
  private static String journalOn(int uid) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = cluster().tabletDba(cluster().tablet(uid)); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select val from _vt.resharding_journal")) {
      while (rs.next()) {
        out.append(rs.getString(1)).append('\n');
      }
    }
    return out.toString();
  }

  private static ActionResult switchTraffic(SwitchTrafficRequest request) {
    return worker().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW) + "-" + UUID.randomUUID())
        .switchTraffic(request);
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
