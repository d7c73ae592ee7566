package io.pointsman.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.engine.mysql.PrimaryEndpoint;
import io.pointsman.engine.mysql.Stream;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.KeyspacePartition;
import io.pointsman.engine.topo.model.ShardReference;
import io.pointsman.engine.topo.model.ShardTabletControl;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.sandbox.cluster.HashVindex;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Small readers of a {@link SwitchWorld}'s state, and checks the end-to-end tests share. */
final class E2eChecks {
  static final String CELL = "zone1";
  private static final ObjectMapper JSON = new ObjectMapper();

  private E2eChecks() {}

  /** A fresh workflow id of an action, so reruns of one action never collide in the test server. */
  static String id(String action, String keyspace, String workflow) {
    return Pointsman.workflowId(action, keyspace, workflow) + "-" + UUID.randomUUID();
  }

  static SrvKeyspace srvKeyspace(SwitchWorld world, String keyspace) {
    return world.store().getRequired(world.store().keys().srvKeyspace(CELL, keyspace)).value();
  }

  /** The shards a tablet type's partition references, in order. */
  static List<String> references(SrvKeyspace srv, TabletType type) {
    return srv.partition(type).map(KeyspacePartition::shardReferences).orElse(List.of()).stream()
        .map(ShardReference::name).toList();
  }

  /** The shards whose query service a tablet type's partition marks disabled. */
  static List<String> queryServiceDisabled(SrvKeyspace srv, TabletType type) {
    return srv.partition(type).map(KeyspacePartition::shardTabletControls).orElse(List.of()).stream()
        .filter(ShardTabletControl::queryServiceDisabled).map(ShardTabletControl::name).toList();
  }

  static boolean primaryServing(SwitchWorld world, String keyspace, String shard) {
    return world.store().getRequired(world.store().keys().shard(keyspace, shard)).value().isPrimaryServing();
  }

  /** The primary of a shard as the sandbox runs it (also after its shard record was deleted). */
  static PrimaryEndpoint primary(SwitchWorld world, String keyspace, String shard) {
    return world.sandbox.primary(keyspace, shard).endpoint();
  }

  static List<Stream> streams(SwitchWorld world, String keyspace, String shard, String workflow) {
    return world.services.streams().read(primary(world, keyspace, shard), workflow);
  }

  /** The tables of a shard primary's database, sorted. */
  static List<String> tables(SwitchWorld world, String keyspace, String shard) throws SQLException {
    PrimaryEndpoint ep = primary(world, keyspace, shard);
    return strings(world, keyspace, shard, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
        + ep.dbName() + "' ORDER BY 1");
  }

  /** Every trigger of a shard primary's database. */
  static List<String> triggers(SwitchWorld world, String keyspace, String shard) throws SQLException {
    PrimaryEndpoint ep = primary(world, keyspace, shard);
    return strings(world, keyspace, shard, "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS"
        + " WHERE TRIGGER_SCHEMA = '" + ep.dbName() + "' ORDER BY 1");
  }

  static long rows(SwitchWorld world, String keyspace, String shard, String table) throws SQLException {
    PrimaryEndpoint ep = primary(world, keyspace, shard);
    return Long.parseLong(strings(world, keyspace, shard, "SELECT COUNT(*) FROM `" + ep.dbName() + "`." + table)
        .get(0));
  }

  /**
   * The rows of a table keyed by customer_id whose keyspace id (the sandbox's hash vindex) lies
   * outside the shard's key range: rows a stream filtered into the wrong shard.
   */
  static List<Long> misplacedRows(SwitchWorld world, String keyspace, String shard, String table)
      throws SQLException {
    PrimaryEndpoint ep = primary(world, keyspace, shard);
    KeyRange range = KeyRange.ofShard(shard);
    return strings(world, keyspace, shard, "SELECT customer_id FROM `" + ep.dbName() + "`." + table).stream()
        .map(Long::parseLong).filter(id -> !HashVindex.inKeyRange(id, range)).toList();
  }

  static List<String> strings(SwitchWorld world, String keyspace, String shard, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = world.sandbox.connect(keyspace, shard); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * Starts a switch, cancels it while it waits at {@code block} (armed before, so the cancel lands at
   * that step), lets the step go on once the worker saw the cancel, and asserts the run ended
   * cancelled (a {@link CanceledFailure} under the workflow's failure), whatever it did before.
   */
  static void cancelWhileBlocked(SwitchWorld world, SwitchTrafficWorkflow wf, SwitchTrafficRequest request,
      FaultInjection.Block block) {
    WorkflowClient.start(wf::switchTraffic, request);
    await().atMost(Duration.ofMinutes(2)).until(block::reached);

    WorkflowStub.fromTyped(wf).cancel();
    world.awaitCancellationSeen(WorkflowStub.fromTyped(wf));
    block.release();

    WorkflowFailedException failed = catchThrowableOfType(
        () -> WorkflowStub.fromTyped(wf).getResult(Object.class), WorkflowFailedException.class);
    assertThat(failed).isNotNull();
    assertThat(failed.getCause()).isInstanceOf(CanceledFailure.class);
  }

  /** vtctldclient's routing rules JSON (GetRoutingRules, a SrvVSchema's) as "from -> to,to" lines, sorted. */
  static List<String> routingRuleLines(String json) throws IOException {
    List<String> out = new ArrayList<>();
    for (JsonNode rule : JSON.readTree(json).path("rules")) {
      List<String> to = new ArrayList<>();
      rule.path("to_tables").forEach(t -> to.add(t.asText()));
      out.add(rule.path("from_table").asText() + " -> " + String.join(",", to));
    }
    out.sort(null);
    return out;
  }
}
