package io.pointsman.e2e;

import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.NOT_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.ReverseTrafficWorkflow;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.FaultInjection.When;
import io.pointsman.e2e.process.Outcome;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.WriteBarrier;
import io.pointsman.engine.net.LoopbackPorts;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A source primary fails over to its replica in the middle of a write switch, as a failover tool
 * that takes no Vitess lock does it: the old primary crashes, its GTID replica (as a Vitess replica
 * tablet's MySQL) is promoted, and the shard record is pointed at it. Issue 18 item 6: the write
 * barrier is replicated, so while writes are denied the promoted replica refuses a write sent
 * straight to it. Issue 20, primary fencing: the switch planned its primaries under the shard
 * locks and notices; at three points of the switch it does what the point calls for. Before the
 * journal it undoes everything, the undo reaching the new primary (its barrier lifted, streams
 * reading from it); after the journal it plans again and finishes on the new primary.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class BarrierSurvivesFailoverTest {
  private static final String WORKFLOW = "commerce2customer";
  private static final String SOURCE = "commerce";
  private static final String TARGET = "customer";
  private static final Duration LONG = Duration.ofMinutes(2);

  /** Where the switch is held while the source fails over, and how it must end. */
  enum FailoverPoint {
    AFTER_THE_BARRIER("stopSourceWrites", false),
    AFTER_THE_CATCH_UP("waitForCatchup", false),
    AFTER_THE_JOURNAL("createJournals", true);

    final String step;
    final boolean finishes;

    FailoverPoint(String step, boolean finishes) {
      this.step = step;
      this.finishes = finishes;
    }
  }

  private static final FaultInjection faults = new FaultInjection();
  private static final List<MariaDbProcess> replicas = new ArrayList<>();
  private static SwitchWorld world;
  private static Path replicaDirs;
  /** The next replica's tablet uid, as Vitess numbers a shard's further tablets. */
  private static int nextUid = 101;
  private static long nextId = 910_000_000;

  @BeforeAll
  static void up() throws Exception {
    world = SwitchWorld.startWithOwnEtcd(true, faults);
    world.createMoveTables();
    replicaDirs = Files.createTempDirectory("pm-replica");
  }

  @AfterAll
  static void down() throws Exception {
    if (world != null) {
      world.close();
    }
    for (MariaDbProcess r : replicas) {
      r.close();
    }
    if (replicaDirs != null) {
      try (var files = Files.walk(replicaDirs)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(FailoverPoint.class)
  void aSourceFailoverMidSwitchKeepsTheBarrierAndEndsTheSwitchAsThePointCallsFor(FailoverPoint point)
      throws Exception {
    faults.reset();
    world.awaitStreamsRunning(TARGET, WORKFLOW);
    Replica replica = startReplicaOfTheSourcePrimary();
    FaultInjection.Block block = faults.blockOnce(point.step, When.AFTER);
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
      replica.awaitCaughtUpWith(oldPrimary);
      world.sandbox.stopPrimary(SOURCE, "0", ServerStop.CRASH);
      replica.promote(oldPrimary);

      PrimaryEndpoint newPrimary = world.services.primaries().resolve(SOURCE, "0");
      assertThat(newPrimary.port()).isEqualTo(replica.port);
      assertThat(world.services.barrier().deniedTables(newPrimary)).as("the barrier on the promoted replica")
          .isEqualTo(denied);
      long bypass = nextId++;
      assertThatThrownBy(() -> insertCustomer(newPrimary, bypass))
          .as("a write straight to the promoted replica while writes are denied")
          .satisfies(e -> assertThat(WriteBarrier.isWriteDenied(e)).as(e.toString()).isTrue());
      assertThat(customerRows(newPrimary, bypass)).isZero();

      block.release();
      Outcome outcome = Outcome.of(running);
      assertThat(WorldSnapshot.lockKeys(world)).as("lock keys left behind").isEmpty();
      if (point.finishes) {
        assertThat(outcome.switched()).as(outcome.toString()).isTrue();
        assertThat(outcome.result().currentState()).isEqualTo(ALL_SWITCHED);
        world.assertDefinedState(TARGET, WORKFLOW, "ALL_SWITCHED");
        assertThat(faults.calls()).filteredOn(c -> c.step().equals("planPrimaries"))
            .as("planned again past the journal").hasSizeGreaterThanOrEqualTo(2);
        // The reverse stream writes into the new primary: a row written on the target reaches it.
        long id = nextId++;
        String shard = HashVindex.inKeyRange(id, KeyRange.ofShard("-80")) ? "-80" : "80-";
        insertCustomer(world.services.primaries().resolve(TARGET, shard), id);
        await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> customerRows(newPrimary, id) == 1);
        reverseTraffic();
      } else {
        assertThat(outcome.switched()).as(outcome.toString()).isFalse();
        assertThat(outcome.failure()).contains("the primary of commerce/0 changed during the switch",
            "planned " + oldPrimary.alias(), "now zone1-", "rolled back");
        world.assertDefinedState(TARGET, WORKFLOW, "NOT_SWITCHED");
        assertThat(world.services.barrier().deniedTables(newPrimary)).as("the barrier lifted on the new primary")
            .isEmpty();
        // The forward streams run again, reading the new primary: a row written there reaches the target.
        long id = nextId++;
        insertCustomer(newPrimary, id);
        String shard = HashVindex.inKeyRange(id, KeyRange.ofShard("-80")) ? "-80" : "80-";
        PrimaryEndpoint target = world.services.primaries().resolve(TARGET, shard);
        await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> customerRows(target, id) == 1);
      }
    } finally {
      block.release();
    }
  }

  private static void reverseTraffic() {
    world.workflow(ReverseTrafficWorkflow.class, E2eChecks.id(Pointsman.REVERSE_TRAFFIC, TARGET, WORKFLOW))
        .reverseTraffic(SwitchTrafficRequest.of(WORKFLOW, TARGET));
    world.assertDefinedState(TARGET, WORKFLOW, "NOT_SWITCHED");
  }

  /** A MariaDB replicating from the source shard's primary now, from its first GTID. */
  private static Replica startReplicaOfTheSourcePrimary() throws Exception {
    int uid = nextUid++;
    int port = LoopbackPorts.freePort();
    MariaDbProcess process = MariaDbProcess.start(MariaDbOptions.builder()
        .folder(replicaDirs.resolve("mysql-" + uid))
        .port(port)
        .serverId(9000 + uid)
        .credentials(credentials())
        .build());
    replicas.add(process);
    Replica replica = new Replica(new TabletAlias("zone1", uid), port);
    PrimaryEndpoint primary = world.services.primaries().resolve(SOURCE, "0");
    MysqlCredentials cred = credentials();
    // Every server here logs every change it applies (log-slave-updates), so the current
    // primary's binary log holds everything since the sandbox was set up.
    replica.run("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + primary.port()
        + ", MASTER_USER = '" + cred.user() + "', MASTER_PASSWORD = '" + cred.password() + "'"
        + ", MASTER_USE_GTID = slave_pos", "START SLAVE");
    replica.awaitCaughtUpWith(primary);
    return replica;
  }

  /** The replica of one case: its tablet alias and MySQL port. */
  private record Replica(TabletAlias alias, int port) {
    void awaitCaughtUpWith(PrimaryEndpoint primary) throws SQLException {
      String position;
      try (Connection c = open(primary.port()); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_binlog_pos")) {
        rs.next();
        position = rs.getString(1);
      }
      try (Connection c = open(port); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT MASTER_GTID_WAIT('" + position + "', 60)")) {
        rs.next();
        assertThat(rs.getInt(1)).as("the replica reached %s; %s", position, status()).isZero();
      }
    }

    /** Stops replicating, and the topology names it primary: a Tablet record and the shard's primary alias. */
    void promote(PrimaryEndpoint oldPrimary) throws SQLException {
      run("STOP SLAVE", "RESET SLAVE ALL");
      TopologyStore store = world.store();
      Tablet old = store.getRequired(store.keys().tablet(oldPrimary.alias())).value();
      Tablet promoted = new Tablet(alias, old.hostname(), old.portMap(), old.keyspace(), old.shard(),
          old.keyRange(), TabletType.PRIMARY, old.dbNameOverride(), old.mysqlHostname(), port);
      store.upsert(store.keys().tablet(alias), current -> promoted, TopologyStore.UNLOCKED);
      String term = Instant.now().toString();
      store.upsert(store.keys().shard(SOURCE, "0"), current -> {
        Shard s = current.orElseThrow();
        return new Shard(alias, term, s.keyRange(), s.sourceShards(), s.tabletControls(), s.isPrimaryServing());
      }, TopologyStore.UNLOCKED);
    }

    void run(String... statements) throws SQLException {
      try (Connection c = open(port); Statement s = c.createStatement()) {
        for (String sql : statements) {
          s.execute(sql);
        }
      }
    }

    String status() {
      try (Connection c = open(port); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
        return rs.next() ? "IO " + rs.getString("Slave_IO_Running") + ", SQL " + rs.getString("Slave_SQL_Running")
            + ", last error: " + rs.getString("Last_Error") + " " + rs.getString("Last_IO_Error") : "not a replica";
      } catch (SQLException e) {
        return e.toString();
      }
    }
  }

  private static void insertCustomer(PrimaryEndpoint primary, long id) throws SQLException {
    try (Connection c = open(primary.port()); Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + primary.dbName() + ".customer (customer_id, email) VALUES (" + id + ", 'failover')");
    }
  }

  private static long customerRows(PrimaryEndpoint primary, long id) throws SQLException {
    try (Connection c = open(primary.port()); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + primary.dbName() + ".customer WHERE customer_id = " + id)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Connection open(int port) {
    return Jdbc.open("127.0.0.1", port, credentials());
  }

  private static MysqlCredentials credentials() {
    return world.sandbox.options().credentials();
  }
}
