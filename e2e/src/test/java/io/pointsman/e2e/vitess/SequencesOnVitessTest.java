package io.pointsman.e2e.vitess;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --initialize-target-sequences} on a real Vitess 24 cluster: customer and corder move from
 * the unsharded commerce, where MySQL's auto-increment gave them ids up to 500 and 700 and their
 * sequence tables were never kept up (next id 1), into the sharded customer keyspace, whose VSchema
 * takes their ids from those sequences (one named bare and found in commerce, one qualified).
 * Without initialization the first insert through vtgate after the switch gets id 2 from the
 * tablet's cache, which a moved row already has. Then the sequence tables themselves move to an
 * unsharded lookup keyspace and back.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SequencesOnVitessTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final MoveTablesCluster.Schema STALE_SEQUENCES = new MoveTablesCluster.Schema("""
      create table customer(customer_id bigint not null auto_increment, email varchar(128), primary key(customer_id)) engine=InnoDB;
      create table corder(order_id bigint not null auto_increment, customer_id bigint, sku varchar(128), price bigint, primary key(order_id)) engine=InnoDB;
      create table customer_seq(id int, next_id bigint, cache bigint, primary key(id)) comment 'vitess_sequence';
      create table order_seq(id int, next_id bigint, cache bigint, primary key(id)) comment 'vitess_sequence';
      """,
      "{\"sharded\": false, \"tables\": {\"customer\": {}, \"corder\": {},"
          + " \"customer_seq\": {\"type\": \"sequence\"}, \"order_seq\": {\"type\": \"sequence\"}}}",
      List.of("insert into customer_seq(id, next_id, cache) values (0, 1, 100)",
          "insert into order_seq(id, next_id, cache) values (0, 1, 100)",
          "insert into customer(customer_id, email) values (1, 'alice@example.com'), (2, 'bob@example.com'),"
              + " (3, 'carol@example.com'), (500, 'zed@example.com')",
          "insert into corder(order_id, customer_id, sku, price) values (1, 1, 'SKU-1', 100), (2, 2, 'SKU-2', 30),"
              + " (700, 500, 'SKU-7', 70)"),
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {
        "customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"}],
                     "auto_increment": {"column": "customer_id", "sequence": "customer_seq"}},
        "corder": {"column_vindexes": [{"column": "customer_id", "name": "hash"}],
                   "auto_increment": {"column": "order_id", "sequence": "commerce.order_seq"}}}}
      """);

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW,
      Map.of("POINTSMAN_VITESS_TABLETS_SPEC", "100:commerce:0 200:customer:-80 300:customer:80- 400:lookup:0"),
      STALE_SEQUENCES));

  @Test
  @Order(1)
  void aDryRunShowsEachSequenceWithItsValueNowAndOnceInitialized() throws Exception {
    ActionResult plan = switchTraffic(request().withDryRun(true));
    List<String> lines = plan.dryRunResults();
    assertThat(lines).containsSubsequence(
        "Create reverse vreplication workflow " + WORKFLOW + "_reverse",
        "The following sequence backing tables used by tables being moved will be initialized:",
        "\tBacking table: customer_seq, current value 1, new value 501",
        "\tBacking table: order_seq, current value 1, new value 701");
    assertThat(lines.get(lines.indexOf("\tBacking table: order_seq, current value 1, new value 701") + 1))
        .as("initialized before the journal").startsWith("Create journal entries on source databases");
    assertThat(nextId("customer_seq")).as("a dry run changes nothing").isEqualTo(1);
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(NOT_SWITCHED);
  }

  @Test
  @Order(2)
  void reverseTrafficRefusesTheFlagBeforeChangingAnything() {
    WorkflowFailedException failed = catchThrowableOfType(() -> worker().workflow(ReverseTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.REVERSE_TRAFFIC, "customer", WORKFLOW) + "-" + UUID.randomUUID())
        .reverseTraffic(request()), WorkflowFailedException.class);
    assertThat(failed).isNotNull();
    assertThat(failed.getCause()).isInstanceOf(ApplicationFailure.class);
    assertThat(failed.getCause().getMessage())
        .contains("initializeTargetSequences applies to MoveTables SwitchTraffic only")
        .contains("not to ReverseTraffic");
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(NOT_SWITCHED);
  }

  /**
   * The tablet serving customer_seq has cached ids 2..100 (one id asked for through vtgate): the
   * switch must both move the sequence past the moved rows and make the tablet drop that cache.
   */
  @Test
  @Order(3)
  void afterTheSwitchInsertsThroughVtgateGetIdsAboveEveryMovedRow() throws Exception {
    assertThat(cluster().query("commerce", "select next value from customer_seq"))
        .as("the stale sequence hands out 1 and caches the ids up to 100").containsExactly(List.of("1"));

    ActionResult switched = switchTraffic(request());
    assertThat(switched.currentState()).isEqualTo(ALL_SWITCHED);
    assertThat(cluster().trafficState("MoveTables", "customer", WORKFLOW)).isEqualTo(ALL_SWITCHED);
    worker().assertValid("customer", WORKFLOW, "ALL_SWITCHED");

    cluster().execute("customer",
        "insert into customer(email) values ('new1@example.com')",
        "insert into customer(email) values ('new2@example.com')",
        "insert into corder(customer_id, sku, price) values (3, 'SKU-8', 80)");
    List<Long> newCustomers = ids("select customer_id from customer where email like 'new%' order by customer_id");
    assertThat(newCustomers).hasSize(2).allSatisfy(id -> assertThat(id).isGreaterThan(500L));
    assertThat(newCustomers.get(0)).as("the first id after the highest moved one").isEqualTo(501L);
    assertThat(ids("select order_id from corder where sku = 'SKU-8'")).singleElement()
        .satisfies(id -> assertThat(id).isEqualTo(701L));
    assertThat(nextId("customer_seq")).isGreaterThan(501L);
  }

  /**
   * Moving the sequence tables themselves (commerce → lookup) and back: each switch makes the tablets
   * it moves them away from drop the ids they cached, as Vitess does, so an id handed out after the
   * way back is above every id handed out meanwhile. Without that, commerce's tablet would hand out
   * the block it cached before the move, below the ids lookup has handed out since.
   */
  @Test
  @Order(4)
  void idsKeepRisingWhenTheSequenceTablesMoveAwayAndBack() throws Exception {
    cluster().vtctldclientOnceEnginesOpen("MoveTables", "--workflow", "seq2lookup", "--target-keyspace", "lookup", "create",
        "--source-keyspace", "commerce", "--tables", "customer_seq,order_seq");
    await("seq2lookup copied, its stream Running").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster().allStreams("MoveTables", "lookup", "seq2lookup", 1, "Running"));
    long inCommerce = nextValue(); // commerce's tablet now caches the ids after it

    assertThat(worker().switchTraffic("lookup", "seq2lookup", SwitchTrafficRequest.ALL_TABLET_TYPES).currentState())
        .isEqualTo(ALL_SWITCHED);
    long inLookup = nextValue();
    assertThat(inLookup).isGreaterThan(inCommerce);

    assertThat(worker().reverseTraffic("lookup", "seq2lookup", SwitchTrafficRequest.ALL_TABLET_TYPES).currentState())
        .isEqualTo(NOT_SWITCHED);
    assertThat(nextValue()).as("back in commerce, above what lookup handed out").isGreaterThan(inLookup);
    worker().assertValid("lookup", "seq2lookup", "NOT_SWITCHED");
  }

  /** {@code select next value from customer_seq} through vtgate, wherever the routing sends it. */
  private static long nextValue() throws Exception {
    return Long.parseLong(cluster().query("", "select next value from customer_seq").get(0).get(0));
  }

  private static SwitchTrafficRequest request() {
    return SwitchTrafficRequest.of(WORKFLOW, "customer").withInitializeTargetSequences(true);
  }

  private static ActionResult switchTraffic(SwitchTrafficRequest request) {
    return worker().workflow(SwitchTrafficWorkflow.class,
        Pointsman.workflowId(Pointsman.SWITCH_TRAFFIC, "customer", WORKFLOW) + "-" + UUID.randomUUID())
        .switchTraffic(request);
  }

  private static List<Long> ids(String sql) throws Exception {
    return cluster().query("customer", sql).stream().map(r -> Long.parseLong(r.get(0))).toList();
  }

  /** The sequence table's next id, read in commerce's MariaDB behind vtgate. */
  private static long nextId(String sequenceTable) throws Exception {
    VitessCluster.Tablet commerce = cluster().primaries("commerce").get(0);
    try (Connection c = cluster().tabletDba(commerce); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select next_id from " + sequenceTable + " where id = 0")) {
      assertThat(rs.next()).as(sequenceTable + " has its row").isTrue();
      return rs.getLong(1);
    }
  }

  private static VitessCluster cluster() {
    return VITESS.cluster();
  }

  private static PointsmanOnVitess worker() {
    return VITESS.worker();
  }
}
