package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.workflows.CancelMigrationWorkflow;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Complete and Cancel of Migrate workflows on a real Vitess 24 cluster. The cluster mounts its own
 * topology as the external cluster {@code ext1}, a stand-in for another Vitess cluster that only the
 * Migrate's streams read (vtctldclient Mount register); two Migrate workflows created by vtctldclient
 * import commerce's tables into customer. pointsman completes one (its table joins customer's VSchema,
 * its streams go) and cancels the other (its table and streams go), touching only customer.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrateOnVitessTest {
  private static final String COMPLETED = "mig_product";
  private static final String CANCELLED = "mig_orders";

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(MigrateOnVitessTest::startCluster);

  private static VitessCluster startCluster() throws Exception {
    return VitessCluster.start(Map.of("POINTSMAN_VITESS_TABLETS_SPEC",
        "100:commerce:0 200:customer:0"), MigrateOnVitessTest::prepare);
  }

  private static void prepare(VitessCluster cluster) throws Exception {
    cluster.vtctldclient("ApplySchema", "--sql-file", cluster.setupFile("commerce.sql",
        "create table product(pid bigint not null, name varchar(64), primary key(pid)) engine=InnoDB;"
            + "create table orders(oid bigint not null, pid bigint, primary key(oid)) engine=InnoDB;").toString(),
        "commerce");
    cluster.vtctldclient("ApplyVSchema", "--vschema", "{\"tables\": {\"product\": {}, \"orders\": {}}}", "commerce");
    cluster.execute("commerce", "insert into product(pid, name) values (1, 'one'), (2, 'two')",
        "insert into orders(oid, pid) values (10, 1), (11, 2), (12, 2)");
    String etcd = cluster.env("POINTSMAN_VITESS_ETCD").replaceFirst("^https?://", "");
    cluster.vtctldclient("Mount", "register", "--name", "ext1", "--topo-type", "etcd2", "--topo-server", etcd,
        "--topo-root", "/vitess/global");
    for (String[] wf : List.of(new String[] {COMPLETED, "product"}, new String[] {CANCELLED, "orders"})) {
      cluster.vtctldclientOnceEnginesOpen("Migrate", "--workflow", wf[0], "--target-keyspace", "customer", "create",
          "--mount-name", "ext1", "--source-keyspace", "commerce", "--tables", wf[1]);
    }
    await("both Migrate workflows copied").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> tableRows(cluster, "product") == 2 && tableRows(cluster, "orders") == 3
            && workflows(cluster).containsAll(List.of(COMPLETED, CANCELLED)));
  }

  @Test
  @Order(1)
  void aCompleteDryRunSaysWhatItWouldDoAndDoesNothing() throws Exception {
    ActionResult plan = complete(CompleteRequest.of(COMPLETED, "customer").with(false, false, false, true));
    assertThat(plan.dryRunResults()).containsExactly("Lock workflow customer/" + COMPLETED, "Lock keyspace customer",
        "Add tables [product] to the VSchema of keyspace customer where missing, and rebuild the serving VSchema",
        "Denied tables records on [product] will be removed from customer [0]",
        "Delete vreplication streams on targets: customer [0] workflow " + COMPLETED,
        "Unlock keyspace customer", "Unlock workflow customer/" + COMPLETED);
    assertThat(workflows(cluster())).contains(COMPLETED);
    assertThat(deniedOnCustomer()).as("Migrate create denies the imported tables on the target").contains("product");
  }

  @Test
  @Order(2)
  void completeAddsTheTableToTheVSchemaAndDeletesTheStreams() throws Exception {
    ActionResult done = complete(CompleteRequest.of(COMPLETED, "customer"));
    assertThat(done.summary())
        .isEqualTo("Successfully completed the " + COMPLETED + " workflow in the customer keyspace");
    assertThat(workflows(cluster())).doesNotContain(COMPLETED).contains(CANCELLED);
    assertThat(customerVSchemaTables()).contains("product");
    // Vitess 24's own Complete leaves product denied on customer, so vtgate refuses every query of it
    assertThat(deniedOnCustomer()).doesNotContain("product").contains("orders");
    assertThat(cluster().query("customer", "select name from product order by pid"))
        .as("vtgate serves the imported table from customer").containsExactly(List.of("one"), List.of("two"));
    assertThat(tablesOnCustomer()).contains("product");
  }

  @Test
  @Order(3)
  void cancelDropsTheTableAndDeletesTheStreamsLeavingTheSourceAlone() throws Exception {
    ActionResult done = worker().workflow(CancelMigrationWorkflow.class, "Cancel-" + UUID.randomUUID())
        .cancel(CancelRequest.of(CANCELLED, "customer"));
    assertThat(done.summary())
        .isEqualTo("Successfully cancelled the " + CANCELLED + " workflow in the customer keyspace");
    assertThat(workflows(cluster())).doesNotContain(CANCELLED);
    assertThat(tablesOnCustomer()).doesNotContain("orders").contains("product");
    assertThat(customerVSchemaTables()).doesNotContain("orders");
    assertThat(deniedOnCustomer()).isEmpty();
    assertThat(cluster().query("commerce", "select count(*) from orders")).as("the source is untouched")
        .containsExactly(List.of("3"));
  }

  private static ActionResult complete(CompleteRequest request) {
    return worker().workflow(CompleteMigrationWorkflow.class, "Complete-" + UUID.randomUUID()).complete(request);
  }

  private static List<String> workflows(VitessCluster cluster) {
    List<String> names = new ArrayList<>();
    for (JsonNode wf : cluster.vtctldclientJson("GetWorkflows", "customer").path("workflows")) {
      names.add(wf.path("name").asText());
    }
    return names;
  }

  private static List<String> customerVSchemaTables() {
    List<String> names = new ArrayList<>();
    cluster().vtctldclientJson("GetVSchema", "customer").path("tables").fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The tables denied to PRIMARY on customer/0's shard record, as vtctld reads it. */
  private static List<String> deniedOnCustomer() {
    List<String> names = new ArrayList<>();
    JsonNode shard = cluster().vtctldclientJson("GetShard", "customer/0").path("shard");
    for (JsonNode control : shard.path("tablet_controls")) {
      control.path("denied_tables").forEach(t -> names.add(t.asText()));
    }
    return names;
  }

  /** The tables in customer's database on its primary's MariaDB. */
  private static List<String> tablesOnCustomer() throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = cluster().tabletDba(cluster().tablet(200)); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("show tables")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static long tableRows(VitessCluster cluster, String table) {
    try (Connection c = cluster.tabletDba(cluster.tablet(200)); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      return -1; // not created yet
    }
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
