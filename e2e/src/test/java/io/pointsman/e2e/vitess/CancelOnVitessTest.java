package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static io.pointsman.e2e.WorkflowFailures.applicationFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CancelRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.e2e.WorkflowFailures;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * pointsman cancels a MoveTables workflow that vtctldclient created and real VReplication copied, on
 * a real Vitess 24 cluster, through the tablets only: afterwards vtctld knows no such workflow, the
 * copies are gone from customer's shards, commerce serves its tables with every row through vtgate
 * for reads and writes, no routing rule names a moved table, and pointsman's validator finds nothing
 * wrong. Once the writes are switched, Cancel refuses and changes nothing.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CancelOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String REVERSE = WORKFLOW + "_reverse";
  private static final List<String> MOVED = List.of("corder", "customer");
  private static final List<TabletType> ALL = SwitchTrafficRequest.ALL_TABLET_TYPES;
  private static final String CANCELLED =
      "Successfully cancelled the " + WORKFLOW + " workflow in the customer keyspace";

  /**
   * The customers commerce holds, in id order: the seeded three, then 10, 30 and 40 written through
   * vtgate after each Cancel, 20 through the switched target.
   */
  private static final List<String> customers = new ArrayList<>(List.of("1", "2", "3"));

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW));

  @Test
  @Order(1)
  void pointsmanCancelsAWorkflowNeverSwitchedAndVitessFindsNothingOfItLeft() throws Exception {
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
    assertThat(tablesOnPrimaries("customer")).as("the copies, before Cancel")
        .allSatisfy((alias, tables) -> assertThat(tables).containsAll(MOVED));
    assertThat(routingRuleTables()).as("the workflow's routing rules, before Cancel").isNotEmpty();

    assertThat(worker().cancel("customer", WORKFLOW).summary()).isEqualTo(CANCELLED);

    assertNothingLeft();
    assertCommerceServes(10);
  }

  /**
   * After pointsman switched the writes, Cancel would drop the tables the writes go to: it is
   * refused, naming why and what to run instead, and changes nothing: the routing rules, the shard
   * records, every stream row and the target's tables are as they were, and no keyspace lock is left held.
   */
  @Test
  @Order(2)
  void cancelAfterPointsmanSwitchedTheWritesIsRefusedAndChangesNothing() throws Exception {
    recreateTheWorkflow();
    assertThat(worker().switchTraffic("customer", WORKFLOW, ALL).currentState()).isEqualTo(ALL_SWITCHED);
    // one reverse stream on commerce/0 from each of customer's two shards
    await("reverse streams Running").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster().allStreams("MoveTables", "commerce", REVERSE, 2, "Running"));
    Snapshot before = snapshot();

    ApplicationFailure refused = applicationFailure(() -> worker().cancel("customer", WORKFLOW));

    assertThat(refused.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(refused.getOriginalMessage()).isEqualTo("cannot cancel workflow customer." + WORKFLOW
        + " because its writes have been switched; run ReverseTraffic first");
    assertThat(snapshot()).isEqualTo(before);
    assertThat(worker().lockKeys("customer")).isEmpty();
    assertThat(worker().lockKeys("commerce")).isEmpty();
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(ALL_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");
    // the target still takes the writes, and the reverse stream still carries them back to commerce
    cluster().execute("customer", "insert into customer(customer_id, email) values (20, 'switched@example.com')");
    customers.add("20");
    await("the write carried back to commerce").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(300))
        .until(() -> cluster().onTablet(cluster().tablet(100), "select email from customer where customer_id = 20")
            .equals(List.of("switched@example.com")));
  }

  /**
   * Once pointsman reversed the switch, Cancel goes through: the forward workflow and the reverse
   * one that the switch created on commerce are both gone.
   */
  @Test
  @Order(3)
  void afterPointsmanReversesTheSwitchCancelRemovesBothWorkflows() throws Exception {
    assertThat(worker().reverseTraffic("customer", WORKFLOW, ALL).currentState()).isEqualTo(NOT_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "NOT_SWITCHED");
    assertThat(cluster().workflows("commerce")).containsExactly(REVERSE);

    assertThat(worker().cancel("customer", WORKFLOW).summary()).isEqualTo(CANCELLED);

    assertNothingLeft();
    assertCommerceServes(30);
  }

  /** With only the reads switched to customer, Cancel removes the rules that send them there with the rest. */
  @Test
  @Order(4)
  void pointsmanCancelsAWorkflowWhoseReadsItSwitched() throws Exception {
    recreateTheWorkflow();
    List<TabletType> reads = List.of(TabletType.REPLICA, TabletType.RDONLY);
    assertThat(worker().switchTraffic("customer", WORKFLOW, reads).currentState())
        .isEqualTo(READS_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "READS_SWITCHED");
    assertThat(routedTo("customer@replica")).isEqualTo("customer.customer");
    assertThat(routedTo("corder@rdonly")).isEqualTo("customer.corder");
    assertThat(routedTo("customer")).isEqualTo("commerce.customer");

    assertThat(worker().cancel("customer", WORKFLOW).summary()).isEqualTo(CANCELLED);

    assertNothingLeft();
    assertCommerceServes(40);
  }

  /**
   * vtctldclient's {@code --ignore-source-keyspace}: with commerce deleted from the topology
   * ({@code vtctldclient DeleteKeyspace --recursive}), Cancel without the flag is refused before
   * anything changes, naming it; with it, Cancel locks customer alone and leaves nothing of the
   * workflow on customer: vtctld lists no workflow, the copies and the routing rules are gone, and
   * commerce stays deleted (its MariaDB keeps its tables: nothing there was touched).
   */
  @Test
  @Order(5)
  void withCommerceDeletedPointsmanCancelsIgnoringTheSourceKeyspace() throws Exception {
    recreateTheWorkflow();
    assertThat(cluster().keyspaces()).contains("commerce", "customer");
    cluster().vtctldclient("DeleteKeyspace", "--recursive", "commerce");
    assertThat(cluster().keyspaces()).doesNotContain("commerce");

    ApplicationFailure refused = WorkflowFailures.typedFailure(catchThrowableOfType(
        () -> worker().cancel("customer", WORKFLOW), WorkflowFailedException.class));
    assertThat(refused.getType()).isEqualTo("FAILED_PRECONDITION");
    assertThat(refused.getOriginalMessage()).contains("moves tables from keyspace commerce, which the topology no"
        + " longer has").contains("--ignore-source-keyspace").endsWith("Nothing was changed");
    assertThat(cluster().workflows("customer")).containsExactly(WORKFLOW);

    assertThat(worker().cancel(CancelRequest.of(WORKFLOW, "customer").ignoringSourceKeyspace()).summary())
        .isEqualTo(CANCELLED);

    assertThat(cluster().workflows("customer")).as("vtctldclient Workflow list in customer").isEmpty();
    assertThat(streamRows()).as("_vt.vreplication rows of " + WORKFLOW).isEmpty();
    assertThat(tablesOnPrimaries("customer")).as("customer's tables after Cancel")
        .hasSize(2).allSatisfy((alias, tables) -> assertThat(tables).doesNotContainAnyElementsOf(MOVED));
    assertThat(routingRuleTables()).as("routing rules after Cancel").isEmpty();
    for (String shard : List.of("customer/-80", "customer/80-")) {
      assertThat(cluster().vtctldclientJson("GetShard", shard).path("shard").path("tablet_controls"))
          .as("denied tables of " + shard).isEmpty();
    }
    assertThat(worker().lockKeys("customer")).isEmpty();
    assertThat(cluster().keyspaces()).as("commerce stays deleted").doesNotContain("commerce").contains("customer");
    assertThat(tablesOn(cluster().tablet(100))).as("commerce's MariaDB, untouched").containsAll(MOVED);
  }

  /** vtctldclient creates the workflow again, as {@link MoveTablesCluster} did: Cancel left commerce as it was. */
  private static void recreateTheWorkflow() {
    cluster().vtctldclientOnceEnginesOpen("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer", "create",
        "--source-keyspace", "commerce", "--tables", "customer,corder");
    await("MoveTables copy done, streams Running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> MoveTablesCluster.allStreams(cluster(), WORKFLOW, "Running"));
  }

  /**
   * What vtctld, the tablets and pointsman's validator show of a cancelled workflow: nothing, nor of
   * the reverse workflow a switch created on commerce.
   */
  private static void assertNothingLeft() throws Exception {
    assertThat(cluster().workflows("customer")).as("vtctldclient Workflow list in customer").isEmpty();
    assertThat(cluster().workflows("commerce")).as("vtctldclient Workflow list in commerce").isEmpty();
    JsonNode shown = cluster().vtctldclientJson("MoveTables", "--workflow", WORKFLOW, "--target-keyspace", "customer",
        "show", "--include-logs=false").path("workflows");
    assertThat(shown.isArray()).as("vtctldclient MoveTables show after Cancel: " + shown).isTrue();
    assertThat(shown).as("vtctldclient MoveTables show after Cancel").isEmpty();
    assertThat(streamRows()).as("_vt.vreplication rows of " + WORKFLOW + " and " + REVERSE).isEmpty();
    assertThat(tablesOnPrimaries("customer")).as("customer's tables after Cancel")
        .hasSize(2).allSatisfy((alias, tables) -> assertThat(tables).doesNotContainAnyElementsOf(MOVED));
    assertThat(routingRuleTables()).as("routing rules after Cancel").isEmpty();
    for (String shard : List.of("commerce/0", "customer/-80", "customer/80-")) {
      assertThat(cluster().vtctldclientJson("GetShard", shard).path("shard").path("tablet_controls"))
          .as("denied tables of " + shard).isEmpty();
    }
    // as vtctldclient's Cancel: the sharded target's VSchema is its users', and stays
    assertThat(cluster().vtctldclientJson("GetVSchema", "customer").path("tables").has("customer")).isTrue();
    assertThat(cluster().vtctldclientJson("GetVSchema", "commerce").path("tables").has("customer")).isTrue();
    worker().assertValid("customer", WORKFLOW, "NO_WORKFLOW");
  }

  /**
   * commerce has every customer and order, and vtgate reads them and takes a new customer there (no
   * denied table left on commerce, and the tablet applies that).
   */
  private static void assertCommerceServes(long newCustomer) throws Exception {
    VitessCluster.Tablet commerce = cluster().tablet(100);
    assertThat(tablesOn(commerce)).containsAll(MOVED);
    assertThat(cluster().onTablet(commerce, "select customer_id from customer order by customer_id"))
        .containsExactlyElementsOf(customers);
    assertThat(cluster().onTablet(commerce, "select order_id from corder order by order_id")).containsExactly("1", "2");
    assertThat(cluster().query("commerce", "select customer_id from customer order by customer_id"))
        .extracting(row -> row.get(0)).containsExactlyElementsOf(customers);
    long price = Long.parseLong(cluster().onTablet(commerce, "select price from corder where order_id = 1").get(0));
    cluster().execute("commerce",
        "insert into customer(customer_id, email) values (" + newCustomer + ", 'new@example.com')",
        "update corder set price = price + 1 where order_id = 1");
    customers.add(String.valueOf(newCustomer));
    assertThat(cluster().onTablet(commerce, "select email from customer where customer_id = " + newCustomer))
        .containsExactly("new@example.com");
    assertThat(cluster().onTablet(commerce, "select price from corder where order_id = 1"))
        .containsExactly(String.valueOf(price + 1));
    assertThat(cluster().query("commerce", "select email from customer where customer_id = " + newCustomer))
        .containsExactly(List.of("new@example.com"));
  }

  /** What a refused Cancel must leave as it found it. */
  record Snapshot(JsonNode routingRules, Map<String, JsonNode> shards, List<String> streamRows,
      Map<String, List<String>> customerTables) {}

  private static Snapshot snapshot() throws Exception {
    Map<String, JsonNode> shards = new TreeMap<>();
    for (String shard : List.of("commerce/0", "customer/-80", "customer/80-")) {
      shards.put(shard, cluster().vtctldclientJson("GetShard", shard).path("shard"));
    }
    return new Snapshot(cluster().vtctldclientJson("GetRoutingRules"), shards, streamRows(),
        tablesOnPrimaries("customer"));
  }

  /**
   * The workflow's and its reverse's stream rows on every primary, as the tablets store them (the
   * position and times left out: a running stream moves them by itself).
   */
  private static List<String> streamRows() throws Exception {
    List<String> rows = new ArrayList<>();
    for (VitessCluster.Tablet t : cluster().tablets()) {
      for (String row : cluster().onTablet(t, "select concat_ws(' | ', id, workflow, state, message, source)"
          + " from _vt.vreplication where workflow in ('" + WORKFLOW + "', '" + REVERSE + "') order by id")) {
        rows.add(t.alias() + ": " + row);
      }
    }
    return rows;
  }

  /** The base tables of each primary of {@code keyspace}, by tablet alias. */
  private static Map<String, List<String>> tablesOnPrimaries(String keyspace) throws Exception {
    Map<String, List<String>> out = new TreeMap<>();
    for (VitessCluster.Tablet t : cluster().tablets()) {
      if (t.keyspace().equals(keyspace) && t.type().equals("primary")) {
        out.put(t.alias(), tablesOn(t));
      }
    }
    return out;
  }

  private static List<String> tablesOn(VitessCluster.Tablet t) throws Exception {
    return cluster().onTablet(t, "select table_name from information_schema.tables where table_schema = database()"
        + " and table_type = 'BASE TABLE' order by table_name");
  }

  /** The tables the routing rules name, e.g. {@code customer@replica} and {@code commerce.customer}. */
  private static List<String> routingRuleTables() {
    List<String> from = new ArrayList<>();
    cluster().vtctldclientJson("GetRoutingRules").path("rules").forEach(r -> from.add(r.path("from_table").asText()));
    return from;
  }

  /** Where vtgate's routing rules send {@code fromTable}; empty without a rule. */
  private static String routedTo(String fromTable) {
    for (JsonNode rule : cluster().vtctldclientJson("GetRoutingRules").path("rules")) {
      if (rule.path("from_table").asText().equals(fromTable)) {
        return rule.path("to_tables").path(0).asText();
      }
    }
    return "";
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
