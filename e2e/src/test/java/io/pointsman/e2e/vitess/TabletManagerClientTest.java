package io.pointsman.e2e.vitess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.mysql.StreamState;
import io.pointsman.engine.mysql.WorkflowSubType;
import io.pointsman.engine.mysql.WorkflowType;
import io.pointsman.engine.tablet.DbaQuery;
import io.pointsman.engine.tablet.NewWorkflow;
import io.pointsman.engine.tablet.TabletEndpoint;
import io.pointsman.engine.tablet.TabletManagerClient;
import io.pointsman.engine.tablet.TabletQueryResult;
import io.pointsman.engine.tablet.TabletRpcOptions;
import io.pointsman.engine.tablet.TabletTls;
import io.pointsman.engine.tablet.VReplicationStatements;
import io.pointsman.engine.tablet.VReplicationWorkflow;
import io.pointsman.engine.tablet.WorkflowUpdate;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tablet-manager client against a real Vitess 24 cluster with a MoveTables workflow
 * {@code commerce2customer} created by vtctldclient: each RPC pointsman needs for a traffic switch
 * does on real vttablets what vtctld's does, and vtctld sees the result.
 */
class TabletManagerClientTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final OnVitessExtension VITESS = OnVitessExtension.of(() -> MoveTablesCluster.start(WORKFLOW)).withoutWorker();

  private static VitessCluster cluster;
  private static TabletManagerClient client;
  private static TabletEndpoint commerce;
  private static List<TabletEndpoint> targets;

  @BeforeAll
  static void moveTablesCreated() throws Exception {
    cluster = VITESS.cluster();
    client = VITESS.open("the tablet-manager client", new TabletManagerClient(TabletRpcOptions.DEFAULTS));
    commerce = cluster.tablet(100).endpoint();
    targets = List.of(cluster.tablet(200).endpoint(), cluster.tablet(300).endpoint());
  }

  @Test
  void readsTheWorkflowFromEachTargetPrimary() {
    for (TabletEndpoint target : targets) {
      VReplicationWorkflow wf = client.readVReplicationWorkflow(target, WORKFLOW).orElseThrow();
      assertThat(wf.workflow()).isEqualTo(WORKFLOW);
      assertThat(wf.dbName()).isEqualTo("vt_customer");
      assertThat(wf.type()).isEqualTo(WorkflowType.MOVE_TABLES);
      assertThat(wf.streams()).hasSize(1);
      VReplicationWorkflow.Stream s = wf.streams().get(0);
      assertThat(s.source().keyspace()).isEqualTo("commerce");
      assertThat(s.source().shard()).isEqualTo("0");
      assertThat(s.source().filter().rules()).extracting(BinlogSource.Rule::match).containsExactlyInAnyOrder("customer", "corder");
      assertThat(s.state()).isEqualTo(StreamState.RUNNING);
      assertThat(s.position()).startsWith("MariaDB/");
      assertThat(s.message()).isNotEqualTo(WorkflowUpdate.FROZEN);
    }
    assertThat(client.readVReplicationWorkflow(commerce, WORKFLOW)).as("the source has no streams of it").isEmpty();
    assertThat(client.readVReplicationWorkflow(targets.get(0), "no_such_workflow")).isEmpty();
  }

  @Test
  void primaryPositionAdvancesWithAWriteOnTheSource() throws SQLException {
    String before = client.primaryPosition(commerce);
    assertThat(before).matches("MariaDB/\\d+-100-\\d+");
    cluster.execute("commerce", "insert into customer(customer_id, email) values (100, 'pos@example.com')");
    String after = client.primaryPosition(commerce);
    assertThat(sequence(after)).isGreaterThan(sequence(before));
  }

  @Test
  void stopsAndStartsTheStreamsAsVtctldSeesThem() {
    Map<TabletEndpoint, VReplicationWorkflow> before = readAll();
    try {
      for (TabletEndpoint t : targets) {
        assertThat(client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.STOPPED, "stopped by pointsman test")))
            .isEqualTo(1);
      }
      assertThat(cluster.moveTablesStreams("customer", WORKFLOW)).hasSize(2).allSatisfy(s -> {
        assertThat(s.path("state").asText()).isEqualTo("Stopped");
        assertThat(s.path("message").asText()).isEqualTo("stopped by pointsman test");
      });
      for (TabletEndpoint t : targets) {
        VReplicationWorkflow wf = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow();
        assertThat(wf.streams()).allSatisfy(s -> assertThat(s.state()).isEqualTo(StreamState.STOPPED));
        // a state change keeps the streams' cells and tablet types (vttablet's "not given" markers)
        assertThat(wf.cells()).isEqualTo(before.get(t).cells());
        assertThat(wf.tabletTypes()).isEqualTo(before.get(t).tabletTypes());
      }
    } finally {
      for (TabletEndpoint t : targets) {
        client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.RUNNING, ""));
      }
    }
    await("vtctld reports the streams Running again").atMost(WAIT).until(() -> allStreams("Running"));
    assertThat(cluster.moveTablesStreams("customer", WORKFLOW)).allSatisfy(s -> assertThat(s.path("message").asText()).isEmpty());
  }

  @Test
  void aFrozenWorkflowCannotBeStartedAndThatIsNotRetryable() {
    TabletEndpoint t = targets.get(0);
    try {
      assertThat(client.updateVReplicationWorkflow(t, WorkflowUpdate.freeze(WORKFLOW))).isEqualTo(1);
      VReplicationWorkflow.Stream frozen = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow().streams().get(0);
      assertThat(frozen.message()).isEqualTo(WorkflowUpdate.FROZEN);
      assertThat(frozen.state()).isEqualTo(StreamState.STOPPED);

      assertThatThrownBy(() -> client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.RUNNING)))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("UpdateVReplicationWorkflow", t.alias().toString(), "frozen");
          });
    } finally {
      // clearing the message is what only VReplicationExec can do (UpdateVReplicationWorkflow refuses to start it)
      client.vreplicationExec(t, "update _vt.vreplication set message = '' where workflow = "
          + VReplicationStatements.sqlString(WORKFLOW) + " and db_name = 'vt_customer'");
      client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.RUNNING));
    }
    await("thawed stream Running").atMost(WAIT).until(() -> allStreams("Running"));
  }

  @Test
  void waitsForTheTargetsToReachTheSourcePosition() throws SQLException {
    cluster.execute("commerce",
        "insert into customer(customer_id, email) values (200, 'wait1@example.com'), (201, 'wait2@example.com'), (202, 'wait3@example.com')");
    String sourcePosition = client.primaryPosition(commerce);
    for (TabletEndpoint t : targets) {
      int id = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow().streams().get(0).id();
      client.vreplicationWaitForPos(t, id, sourcePosition, WAIT);
      VReplicationWorkflow.Stream s = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow().streams().get(0);
      assertThat(sequence(s.position())).isGreaterThanOrEqualTo(sequence(sourcePosition));
    }
    // caught up: every row of the source is in one of the target shards
    long source = count(commerce, "vt_commerce");
    long target = count(targets.get(0), "vt_customer") + count(targets.get(1), "vt_customer");
    assertThat(target).isEqualTo(source).isGreaterThanOrEqualTo(6);
  }

  @Test
  void waitingOnAStoppedStreamFailsAtOnceAndIsNotRetryable() throws SQLException {
    TabletEndpoint t = targets.get(1);
    int id = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow().streams().get(0).id();
    try {
      client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.STOPPED));
      cluster.execute("commerce", "insert into customer(customer_id, email) values (300, 'stopped@example.com')");
      String sourcePosition = client.primaryPosition(commerce);
      assertThatThrownBy(() -> client.vreplicationWaitForPos(t, id, sourcePosition, WAIT))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.INTERNAL);
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("VReplicationWaitForPos", t.alias().toString(), "replication has stopped");
          });

      client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.RUNNING));
      client.vreplicationWaitForPos(t, id, sourcePosition, WAIT);
    } finally {
      client.updateVReplicationWorkflow(t, WorkflowUpdate.state(WORKFLOW, StreamState.RUNNING));
    }
  }

  @Test
  void waitingForAPositionNotYetWrittenRunsIntoTheDeadlineWhichIsRetryable() {
    TabletEndpoint t = targets.get(0);
    int id = client.readVReplicationWorkflow(t, WORKFLOW).orElseThrow().streams().get(0).id();
    String now = client.primaryPosition(commerce);
    String ahead = now.substring(0, now.lastIndexOf('-') + 1) + (sequence(now) + 1000);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> client.vreplicationWaitForPos(t, id, ahead, Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage()).contains("VReplicationWaitForPos", t.alias().toString());
        });
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(1900), Duration.ofSeconds(20));
  }

  @Test
  void waitingOnAStreamThatDoesNotExistFailsAtOnceAndIsNotRetryable() {
    String position = client.primaryPosition(commerce);
    assertThatThrownBy(() -> client.vreplicationWaitForPos(targets.get(0), 999_999, position, WAIT))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.retryable()).isFalse();
          assertThat(e.getMessage()).contains("VReplicationWaitForPos", "999999", "not found");
        });
  }

  @Test
  void refreshStateMakesTheTabletEnforceTheShardsDeniedTables() {
    try {
      cluster.vtctldclient("SetShardTabletControl", "--denied-tables", "corder", "commerce/0", "primary");
      client.refreshState(commerce);
      assertThatThrownBy(() -> cluster.query("commerce", "select count(*) from corder"))
          .isInstanceOf(SQLException.class).hasMessageContaining("denied");
    } finally {
      cluster.vtctldclient("SetShardTabletControl", "--remove", "commerce/0", "primary");
      client.refreshState(commerce);
    }
    await("corder served again").atMost(WAIT).ignoreExceptions()
        .until(() -> cluster.query("commerce", "select count(*) from corder").size() == 1);
  }

  /** Statements run in order on one connection: a session variable set by the first is read by the second. */
  @Test
  void executeMultiFetchAsDbaRunsItsStatementsInOrderOnOneConnection() {
    List<TabletQueryResult> results = client.executeMultiFetchAsDba(commerce,
        DbaQuery.of("set @pointsman_multi = 41 + 1; select @pointsman_multi as v, connection_id() as c"));
    assertThat(results).hasSize(2);
    assertThat(results.get(1).columns()).containsExactly("v", "c");
    assertThat(results.get(1).rows()).singleElement().satisfies(row -> assertThat(row.get(0)).isEqualTo("42"));
    // a second call is another connection: the variable is gone
    assertThat(client.executeMultiFetchAsDba(commerce, DbaQuery.of("select @pointsman_multi")).get(0).rows())
        .singleElement().satisfies(row -> assertThat(row.get(0)).isNull());
  }

  @Test
  void executeFetchAsDbaManagesPointsmansOwnDatabase() {
    for (TabletEndpoint t : List.of(commerce, targets.get(0))) {
      client.executeFetchAsDba(t, DbaQuery.of("create database if not exists _pointsman"));
      client.executeFetchAsDba(t, DbaQuery.of("create table if not exists _pointsman.lock_fence ("
          + "resource varbinary(512) not null, token bigint not null, primary key (resource)) engine = InnoDB"));
      TabletQueryResult raised = client.executeFetchAsDba(t, DbaQuery.of("insert into _pointsman.lock_fence (resource, token) "
          + "values ('/vitess/global/keyspaces/customer', 42) on duplicate key update token = greatest(token, values(token))"));
      assertThat(raised.rowsAffected()).isBetween(1L, 2L);
      TabletQueryResult read = client.executeFetchAsDba(t,
          new DbaQuery("select resource, token from lock_fence", "_pointsman", 10, false, false));
      assertThat(read.columns()).containsExactly("resource", "token");
      assertThat(read.rows()).containsExactly(List.of("/vitess/global/keyspaces/customer", "42"));

      assertThatThrownBy(() -> client.executeFetchAsDba(t, DbaQuery.of("select 1; select 2")))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("ExecuteFetchAsDba", t.alias().toString());
          });
      client.executeFetchAsDba(t, DbaQuery.of("drop database _pointsman"));
      assertThat(client.executeFetchAsDba(t, DbaQuery.of("select schema_name from information_schema.schemata "
          + "where schema_name = '_pointsman'")).rows()).isEmpty();
    }
  }

  @Test
  void createsAndDeletesStreamsTheTwoWaysVtctldDoes() {
    BinlogSource reverse = BinlogSource.of("customer", "-80",
        BinlogSource.Filter.of(new BinlogSource.Rule("customer", "select * from customer")));
    String probe = "pointsman_probe";
    String inserted = "pointsman_probe_reverse";
    try {
      // CreateVReplicationWorkflow: the tablet picks the start position, the streams stay Stopped
      assertThat(client.createVReplicationWorkflow(commerce, new NewWorkflow(probe, List.of(reverse), List.of(),
          List.of(TabletType.PRIMARY), WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, false, false))).isEqualTo(1);
      VReplicationWorkflow created = client.readVReplicationWorkflow(commerce, probe).orElseThrow();
      assertThat(created.dbName()).isEqualTo("vt_commerce");
      assertThat(created.tabletTypes()).containsExactly(TabletType.PRIMARY);
      assertThat(created.streams()).singleElement().satisfies(s -> {
        assertThat(s.state()).isEqualTo(StreamState.STOPPED);
        assertThat(s.source()).isEqualTo(reverse);
      });

      // VReplicationExec insert: a reverse stream at the position the target had at the switch
      String targetPosition = client.primaryPosition(targets.get(0));
      TabletQueryResult ins = client.vreplicationExec(commerce, VReplicationStatements.insertStream(inserted, reverse,
          targetPosition, StreamState.STOPPED, "vt_commerce", WorkflowType.MOVE_TABLES, WorkflowSubType.NONE, Clock.systemUTC()));
      assertThat(ins.insertId()).isPositive();
      VReplicationWorkflow.Stream s = client.readVReplicationWorkflow(commerce, inserted).orElseThrow().streams().get(0);
      assertThat(s.id()).isEqualTo((int) ins.insertId());
      assertThat(s.position()).isEqualTo(targetPosition);
      assertThat(s.state()).isEqualTo(StreamState.STOPPED);
      assertThat(s.source().filter()).isEqualTo(reverse.filter());
    } finally {
      client.deleteVReplicationWorkflow(commerce, probe);
      client.deleteVReplicationWorkflow(commerce, inserted);
    }
    assertThat(client.readVReplicationWorkflow(commerce, probe)).isEmpty();
    assertThat(client.readVReplicationWorkflow(commerce, inserted)).isEmpty();
    assertThat(client.deleteVReplicationWorkflow(commerce, probe)).as("nothing left to delete").isZero();
  }

  @Test
  void aTabletThatDoesNotAnswerIsARetryableErrorNamingIt() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    TabletEndpoint dead = TabletEndpoint.of("zone1-0000000999", "127.0.0.1:" + port);
    try (TabletManagerClient c = new TabletManagerClient(new TabletRpcOptions(Duration.ofSeconds(5), Duration.ofSeconds(2)))) {
      assertThatThrownBy(() -> c.primaryPosition(dead)).isInstanceOfSatisfying(PointsmanException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(e.retryable()).isTrue();
        assertThat(e.getMessage()).contains("PrimaryPosition", "zone1-0000000999", "127.0.0.1:" + port);
      });
      assertThatThrownBy(() -> c.updateVReplicationWorkflow(dead, WorkflowUpdate.state(WORKFLOW, StreamState.STOPPED)))
          .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.retryable()).isTrue());
    }
  }

  @Test
  void aTlsClientToAPlaintextTabletIsToldTheTabletDoesNotSpeakTls() {
    // TLS with the JDK trust store: no files needed to reach the handshake
    TabletTls tls = TabletTls.PLAINTEXT.withServerName("localhost");
    try (TabletManagerClient c = new TabletManagerClient(TabletRpcOptions.DEFAULTS.withTls(tls))) {
      assertThatThrownBy(() -> c.primaryPosition(commerce)).isInstanceOfSatisfying(PointsmanException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(e.getMessage()).contains("PrimaryPosition", commerce.alias().toString(),
            "the tablet does not speak TLS on its gRPC port", TabletTls.SERVER_NAME);
      });
    }
  }

  private static Map<TabletEndpoint, VReplicationWorkflow> readAll() {
    return Map.of(targets.get(0), client.readVReplicationWorkflow(targets.get(0), WORKFLOW).orElseThrow(),
        targets.get(1), client.readVReplicationWorkflow(targets.get(1), WORKFLOW).orElseThrow());
  }

  private static boolean allStreams(String state) {
    return MoveTablesCluster.allStreams(cluster, WORKFLOW, state);
  }

  private static long count(TabletEndpoint t, String db) {
    return Long.parseLong(client.executeFetchAsDba(t, DbaQuery.of("select count(*) from " + db + ".customer")).rows().get(0).get(0));
  }

  /** The sequence number of a single-domain MariaDB GTID position {@code MariaDB/<domain>-<server>-<seq>}. */
  private static long sequence(String position) {
    assertThat(position).matches("MariaDB/\\d+-\\d+-\\d+");
    return Long.parseLong(position.substring(position.lastIndexOf('-') + 1));
  }
}
