package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import io.pointsman.sandbox.cluster.HashVindex;
import io.pointsman.sandbox.cluster.Jdbc;
import io.pointsman.sandbox.cluster.MariaDbOptions;
import io.pointsman.sandbox.cluster.MariaDbProcess;
import io.pointsman.sandbox.cluster.MysqlCredentials;
import io.pointsman.sandbox.cluster.RunningPrimary;
import io.pointsman.sandbox.cluster.ServerStop;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 item 6: the write barrier is part of the data a replica copies, so a replica promoted
 * while the switch holds its barrier refuses the writes the old primary refused. The source shard
 * has a MariaDB replica (GTID replication, as a Vitess replica tablet's MySQL has); while the switch
 * holds after stopSourceWrites, the old primary crashes, the replica is promoted and the shard record
 * points at it, as an external failover tool that takes no Vitess lock would leave it. A client that
 * bypasses every router then writes to the new primary directly: the write must be refused. Then
 * the switch goes on, on the new primary (streams, positions and the reverse stream all follow the
 * shard record), and finishes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BarrierSurvivesFailoverTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String SOURCE = "commerce";
  private static final String TARGET = "customer";
  private static final Duration LONG = Duration.ofMinutes(2);
  /** The replica's tablet, as Vitess numbers a shard's second tablet. */
  private static final TabletAlias REPLICA_ALIAS = new TabletAlias("zone1", 101);

  private static final FaultInjection faults = new FaultInjection();
  private static SwitchWorld world;
  private static Path replicaDir;
  private static MariaDbProcess replica;
  private static int replicaPort;

  @BeforeAll
  static void up() throws Exception {
    world = SwitchWorld.startWithOwnEtcd(true, faults);
    world.createMoveTables();
    replicaDir = Files.createTempDirectory("pm-replica");
    replicaPort = freePort();
    replica = MariaDbProcess.start(MariaDbOptions.builder()
        .folder(replicaDir.resolve("mysql"))
        .port(replicaPort)
        .serverId(9101)
        .credentials(credentials())
        .build());
    RunningPrimary source = world.sandbox.primary(SOURCE, "0");
    MysqlCredentials cred = credentials();
    // From the first GTID: the source's binary log holds every change since it was set up.
    onReplica("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + source.port()
        + ", MASTER_USER = '" + cred.user() + "', MASTER_PASSWORD = '" + cred.password() + "'"
        + ", MASTER_USE_GTID = slave_pos",
        "START SLAVE");
    awaitReplicaCaughtUp();
  }

  @AfterAll
  static void down() throws Exception {
    if (world != null) {
      world.close();
    }
    if (replica != null) {
      replica.close();
    }
  }

  @Test
  void aReplicaPromotedWhileWritesAreDeniedRefusesDirectWritesAndTheSwitchFinishesOnIt() throws Exception {
    FaultInjection.Block block = faults.blockOnce("stopSourceWrites", When.AFTER);
    SwitchTrafficWorkflow wf = world.workflow(SwitchTrafficWorkflow.class,
        E2eChecks.id(Pointsman.SWITCH_TRAFFIC, TARGET, WORKFLOW));
    WorkflowClient.start(wf::switchTraffic, SwitchTrafficRequest.of(WORKFLOW, TARGET));
    WorkflowStub running = WorkflowStub.fromTyped(wf);
    try {
      await().atMost(LONG).until(block::reached);
      PrimaryEndpoint oldPrimary = world.services.primaries().resolve(SOURCE, "0");
      SortedSet<String> denied = world.services.barrier().deniedTables(oldPrimary);
      assertThat(denied).as("the barrier on the old primary").contains("customer", "corder");

      // The failover: the replica has everything the old primary committed, then takes over.
      awaitReplicaCaughtUp();
      world.sandbox.stopPrimary(SOURCE, "0", ServerStop.CRASH);
      onReplica("STOP SLAVE", "RESET SLAVE ALL");
      promoteInTopology(oldPrimary);

      PrimaryEndpoint newPrimary = world.services.primaries().resolve(SOURCE, "0");
      assertThat(newPrimary.port()).isEqualTo(replicaPort);
      assertThat(world.services.barrier().deniedTables(newPrimary)).as("the barrier on the promoted replica")
          .isEqualTo(denied);
      assertThatThrownBy(() -> onReplica(
          "INSERT INTO vt_commerce.customer (customer_id, email) VALUES (910000001, 'bypass')"))
          .as("a write straight to the promoted replica while writes are denied")
          .satisfies(e -> assertThat(WriteBarrier.isWriteDenied(e)).as(e.toString()).isTrue());
      assertThat(rowsOnReplica("SELECT COUNT(*) FROM vt_commerce.customer WHERE customer_id = 910000001"))
          .isZero();

      block.release();
      ActionResult result = running.getResult(3, TimeUnit.MINUTES, ActionResult.class);
      assertThat(result.currentState()).isEqualTo("All Reads Switched. Writes Switched");
      world.assertDefinedState(TARGET, WORKFLOW, "ALL_SWITCHED");
      assertThat(WorldSnapshot.lockKeys(world)).as("lock keys left behind").isEmpty();

      // The reverse stream writes into the new primary: a row written on the target reaches it.
      long id = 910000002;
      String shard = HashVindex.inKeyRange(id, KeyRange.ofShard("-80")) ? "-80" : "80-";
      try (Connection c = world.sandbox.connect(TARGET, shard); Statement s = c.createStatement()) {
        s.execute("INSERT INTO vt_customer.customer (customer_id, email) VALUES (" + id + ", 'reverse')");
      }
      await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() ->
          rowsOnReplica("SELECT COUNT(*) FROM vt_commerce.customer WHERE customer_id = " + id) == 1);
    } finally {
      block.release();
    }
  }

  /** A Tablet record for the replica and the shard's primary alias moved to it, with no lock taken. */
  private static void promoteInTopology(PrimaryEndpoint oldPrimary) {
    TopologyStore store = world.store();
    Tablet old = store.getRequired(store.keys().tablet(oldPrimary.alias())).value();
    Tablet promoted = new Tablet(REPLICA_ALIAS, old.hostname(), old.portMap(), old.keyspace(), old.shard(),
        old.keyRange(), TabletType.PRIMARY, old.dbNameOverride(), old.mysqlHostname(), replicaPort);
    store.upsert(store.keys().tablet(REPLICA_ALIAS), current -> promoted, TopologyStore.UNLOCKED);
    store.upsert(store.keys().shard(SOURCE, "0"),
        current -> current.orElseThrow().withPrimary(REPLICA_ALIAS), TopologyStore.UNLOCKED);
  }

  private static void awaitReplicaCaughtUp() throws SQLException {
    String position;
    try (Connection c = world.sandbox.connect(SOURCE, "0"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_binlog_pos")) {
      rs.next();
      position = rs.getString(1);
    }
    try (Connection c = Jdbc.open("127.0.0.1", replicaPort, credentials()); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT MASTER_GTID_WAIT('" + position + "', 60)")) {
      rs.next();
      assertThat(rs.getInt(1)).as("the replica reached %s; %s", position, replicaStatus()).isZero();
    }
  }

  private static String replicaStatus() {
    try (Connection c = Jdbc.open("127.0.0.1", replicaPort, credentials()); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
      return rs.next() ? "IO " + rs.getString("Slave_IO_Running") + ", SQL " + rs.getString("Slave_SQL_Running")
          + ", last error: " + rs.getString("Last_Error") + " " + rs.getString("Last_IO_Error") : "not a replica";
    } catch (SQLException e) {
      return e.toString();
    }
  }

  private static void onReplica(String... statements) throws SQLException {
    try (Connection c = Jdbc.open("127.0.0.1", replicaPort, credentials()); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  private static long rowsOnReplica(String query) throws SQLException {
    try (Connection c = Jdbc.open("127.0.0.1", replicaPort, credentials()); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static MysqlCredentials credentials() {
    return world.sandbox.options().credentials();
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
