package io.pointsman.e2e;

import static io.pointsman.e2e.E2eChecks.routingRuleLines;
import static io.pointsman.e2e.TrafficStates.ALL_SWITCHED;
import static io.pointsman.e2e.TrafficStates.READS_SWITCHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.pointsman.api.model.ActionResult;
import io.pointsman.api.model.StepProgress;
import io.pointsman.api.model.StepStatus;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.request.CompleteRequest;
import io.pointsman.api.request.SwitchTrafficRequest;
import io.pointsman.api.workflows.CompleteMigrationWorkflow;
import io.pointsman.api.workflows.Pointsman;
import io.pointsman.api.workflows.SwitchTrafficWorkflow;
import io.pointsman.e2e.vitess.Vtctld;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.lock.EtcdLockService;
import io.pointsman.engine.lock.HeldLock;
import io.pointsman.engine.lock.LockContents;
import io.pointsman.engine.lock.LockOptions;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.testing.TestServices;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.RoutingRule;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.ShardRoutingRule;
import io.pointsman.engine.topo.model.SrvKeyspace;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * pointsman and a real vtctld of Vitess 24 on one topology: each reads what the other writes, and
 * each waits for the other's locks. Topology commands need no tablets, so this runs on the sandbox.
 */
@Timeout(600)
class VtctldInteropTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String id(String action) {
    return action + "-customer.commerce2customer-" + UUID.randomUUID();
  }

  /** A topology built by vtctldclient alone is read record by record by pointsman's store. */
  @Test
  void pointsmanReadsEveryRecordVtctldWrites() throws Exception {
    TopoPaths paths = TestEtcd.freshPaths();
    String etcd = TestServices.etcdEndpoint();
    try (Client client = TestEtcd.client(); Vtctld vtctld = Vtctld.start(etcd, paths.globalRoot())) {
      vtctld.client("AddCellInfo", "--root", paths.cellRoot("zone1"), "--server-address",
          etcd.replaceFirst("^https?://", ""), "zone1");
      vtctld.client("CreateKeyspace", "commerce");
      vtctld.client("CreateKeyspace", "--durability-policy", "semi_sync", "customer");
      vtctld.client("CreateShard", "commerce/0");
      vtctld.client("CreateShard", "customer/-80");
      vtctld.client("CreateShard", "customer/80-");
      vtctld.client("ApplyVSchema", "--vschema",
          "{\"tables\":{\"customer\":{},\"corder\":{},\"customer_seq\":{\"type\":\"sequence\"}}}", "commerce");
      vtctld.client("ApplyVSchema", "--vschema", "{\"sharded\":true,\"vindexes\":{\"hash\":{\"type\":\"hash\"}},"
          + "\"tables\":{\"customer\":{\"column_vindexes\":[{\"column\":\"customer_id\",\"name\":\"hash\"}],"
          + "\"auto_increment\":{\"column\":\"customer_id\",\"sequence\":\"commerce.customer_seq\"},"
          + "\"columns\":[{\"name\":\"email\",\"type\":\"VARCHAR\"}],\"column_list_authoritative\":true}}}",
          "customer");
      vtctld.client("ApplyRoutingRules", "--rules",
          "{\"rules\":[{\"from_table\":\"customer\",\"to_tables\":[\"commerce.customer\"]},"
              + "{\"from_table\":\"customer.customer\",\"to_tables\":[\"commerce.customer\"]}]}");
      vtctld.client("ApplyShardRoutingRules", "--rules",
          "{\"rules\":[{\"from_keyspace\":\"customer\",\"to_keyspace\":\"commerce\",\"shard\":\"-80\"}]}");
      vtctld.client("ApplyKeyspaceRoutingRules", "--rules",
          "{\"rules\":[{\"from_keyspace\":\"old\",\"to_keyspace\":\"commerce\"}]}");
      vtctld.client("RebuildKeyspaceGraph", "commerce", "customer");
      vtctld.client("RebuildVSchemaGraph");
      vtctld.client("SetShardTabletControl", "--denied-tables", "customer", "commerce/0", "primary");

      EtcdTopologyStore store = new EtcdTopologyStore(client, paths);
      TopoKeys keys = store.keys();
      assertThat(store.listKeyspaces()).containsExactlyInAnyOrder("commerce", "customer");
      assertThat(store.listShards("customer")).containsExactlyInAnyOrder("-80", "80-");
      assertThat(store.listCells()).containsExactly("zone1");
      assertThat(store.getRequired(keys.cellInfo("zone1")).value().root()).isEqualTo(paths.cellRoot("zone1"));
      assertThat(store.getRequired(keys.keyspace("customer")).value().durabilityPolicy()).isEqualTo("semi_sync");

      Shard low = store.getRequired(keys.shard("customer", "-80")).value();
      assertThat(low.keyRange()).isEqualTo(new KeyRange("", "80"));
      assertThat(low.isPrimaryServing()).isTrue();
      Shard source = store.getRequired(keys.shard("commerce", "0")).value();
      assertThat(source.deniedTables(TabletType.PRIMARY)).containsExactly("customer");

      VSchema customer = store.getRequired(keys.vschema("customer")).value();
      assertThat(customer.sharded()).isTrue();
      assertThat(customer.vindexes().get("hash").type()).isEqualTo("hash");
      VSchemaTable table = customer.tables().get("customer");
      assertThat(table.columnVindexes()).singleElement()
          .satisfies(cv -> assertThat(cv.column()).isEqualTo("customer_id"));
      assertThat(table.autoIncrement().sequence()).isEqualTo("commerce.customer_seq");
      assertThat(store.getRequired(keys.vschema("commerce")).value().tables().get("customer_seq").type())
          .isEqualTo("sequence");

      assertThat(store.getRequired(keys.routingRules()).value().rules())
          .contains(new RoutingRule("customer", List.of("commerce.customer")));
      assertThat(store.getRequired(keys.shardRoutingRules()).value().rules())
          .containsExactly(new ShardRoutingRule("customer", "commerce", "-80"));

      SrvKeyspace served = store.getRequired(keys.srvKeyspace("zone1", "customer")).value();
      assertThat(served.partition(TabletType.PRIMARY)).hasValueSatisfying(p ->
          assertThat(p.shardReferences()).extracting(r -> r.name()).containsExactly("-80", "80-"));
      SrvVSchema srv = store.getRequired(keys.srvVSchema("zone1")).value();
      assertThat(srv.keyspaces()).containsOnlyKeys("commerce", "customer");
      assertThat(srv.routingRules().rules()).contains(new RoutingRule("customer", List.of("commerce.customer")));
      assertThat(srv.shardRoutingRules().rules()).containsExactly(new ShardRoutingRule("customer", "commerce", "-80"));
    }
  }

  /**
   * pointsman switches reads, then writes, then completes; after each step vtctldclient shows the
   * records a Vitess operator expects.
   */
  @Test
  void vtctldShowsEachRecordPointsmanWritesAcrossASwitchAndComplete() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables();
        Vtctld vtctld = Vtctld.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot())) {
      world.createMoveTables();
      SwitchTrafficRequest reads = SwitchTrafficRequest.of("commerce2customer", "customer")
          .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY));
      world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC)).switchTraffic(reads);

      assertThat(routingRuleLines(vtctld.client("GetRoutingRules")))
          .contains("customer@replica -> customer.customer", "customer@rdonly -> customer.customer",
              "customer -> commerce.customer", "corder@replica -> customer.corder");
      assertThat(deniedPrimaryTables(vtctld.client("GetShard", "commerce/0"))).isEmpty();
      assertThat(routingRuleLines(
          srvVSchemaRoutingRules(vtctld.client("GetSrvVSchema", world.sandbox.options().cell()))))
          .isEqualTo(routingRuleLines(vtctld.client("GetRoutingRules")));

      ActionResult writes = world.workflow(SwitchTrafficWorkflow.class, id(Pointsman.SWITCH_TRAFFIC))
          .switchTraffic(SwitchTrafficRequest.of("commerce2customer", "customer"));
      assertThat(writes.currentState()).isEqualTo(ALL_SWITCHED);

      assertThat(routingRuleLines(vtctld.client("GetRoutingRules")))
          .contains("customer -> customer.customer", "commerce.customer -> customer.customer",
              "corder -> customer.corder")
          .doesNotContain("customer -> commerce.customer");
      assertThat(deniedPrimaryTables(vtctld.client("GetShard", "commerce/0")))
          .containsExactlyInAnyOrder("customer", "corder");
      for (String shard : List.of("customer/-80", "customer/80-")) {
        assertThat(deniedPrimaryTables(vtctld.client("GetShard", shard))).isEmpty();
      }
      assertThat(routingRuleLines(
          srvVSchemaRoutingRules(vtctld.client("GetSrvVSchema", world.sandbox.options().cell()))))
          .isEqualTo(routingRuleLines(vtctld.client("GetRoutingRules")));

      world.workflow(CompleteMigrationWorkflow.class, id(Pointsman.COMPLETE_MIGRATION))
          .complete(CompleteRequest.of("commerce2customer", "customer"));
      assertThat(routingRuleLines(vtctld.client("GetRoutingRules"))).isEmpty();
      assertThat(deniedPrimaryTables(vtctld.client("GetShard", "commerce/0"))).isEmpty();
      JsonNode commerce = JSON.readTree(vtctld.client("GetVSchema", "commerce"));
      assertThat(commerce.path("tables").has("customer")).isFalse();
      assertThat(commerce.path("tables").has("corder")).isFalse();
      assertThat(JSON.readTree(vtctld.client("GetVSchema", "customer")).path("tables").has("customer")).isTrue();
      world.assertDefinedState("customer", "commerce2customer", "NO_WORKFLOW");
    }
  }

  /**
   * Locks both ways, with a vtctld command that takes the keyspace lock: it waits while pointsman
   * holds the lock; and a SwitchTraffic that queues behind it waits for vtctld, its progress naming
   * vtctld's lock (action, host, user, since when), then finishes once vtctld is done.
   */
  @Test
  void vtctldAndPointsmanWaitForEachOthersKeyspaceLocks() throws Exception {
    try (SwitchWorld world = SwitchWorld.moveTables();
        Vtctld vtctld = Vtctld.start(world.sandbox.etcdEndpoint(), world.paths.globalRoot());
        EtcdLockService locks = new EtcdLockService(world.etcd, world.paths)) {
      world.createMoveTables();
      String locksDir = world.paths.keyspaceDir("commerce") + "/locks/";
      HeldLock ours = locks.lockKeyspace("commerce",
          LockOptions.builder().action("interop-test").ttl(Duration.ofSeconds(60)).build());

      Process waiting = vtctld.startClient("SetKeyspaceDurabilityPolicy", "--durability-policy", "none", "commerce");
      await("vtctld's lock key queued behind ours").atMost(Duration.ofSeconds(30))
          .until(() -> lockKeys(world.etcd, locksDir).size() == 2);
      String vtctldKey = lockKeys(world.etcd, locksDir).stream().filter(k -> !k.equals(ours.token().key()))
          .findFirst().orElseThrow();
      LockContents vtctldLock = LockContents.parse(lockValue(world.etcd, vtctldKey)).orElseThrow();
      assertThat(vtctldLock.action()).isNotBlank();
      await("vtctld waiting for our lock").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
          .until(waiting::isAlive);

      WorkflowClient client = world.client();
      String switchId = id(Pointsman.SWITCH_TRAFFIC);
      SwitchTrafficWorkflow sw = client.newWorkflowStub(SwitchTrafficWorkflow.class, WorkflowOptions.newBuilder()
          .setTaskQueue(Pointsman.TASK_QUEUE).setWorkflowId(switchId).build());
      WorkflowClient.start(sw::switchTraffic, SwitchTrafficRequest.of("commerce2customer", "customer")
          .withTabletTypes(List.of(TabletType.REPLICA, TabletType.RDONLY)));
      SwitchTrafficWorkflow query = client.newWorkflowStub(SwitchTrafficWorkflow.class, switchId);
      await("the switch's progress naming vtctld's lock").atMost(Duration.ofSeconds(60))
          .until(() -> runningAcquire(query).map(StepProgress::detail).orElse(""),
              d -> d.contains(vtctldKey) && d.contains(vtctldLock.action()) && d.contains(vtctldLock.hostName())
                  && d.contains(vtctldLock.time()));

      ours.close();
      assertThat(waiting.waitFor(60, TimeUnit.SECONDS)).as("vtctld went on once our lock was released").isTrue();
      assertThat(waiting.exitValue()).as(new String(waiting.getInputStream().readAllBytes())).isZero();
      ActionResult done = WorkflowStub.fromTyped(query).getResult(ActionResult.class);
      assertThat(done.currentState()).isEqualTo(READS_SWITCHED);
      assertThat(lockKeys(world.etcd, locksDir)).isEmpty();
    }
  }

  private static java.util.Optional<StepProgress> runningAcquire(SwitchTrafficWorkflow query) {
    return query.progress().steps().stream()
        .filter(s -> s.name().equals("acquireLocks") && s.status() == StepStatus.RUNNING).findFirst();
  }

  private static List<String> lockKeys(Client etcd, String prefix) throws Exception {
    return etcd.getKVClient().get(EtcdClients.bytes(prefix),
            io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withKeysOnly(true).build())
        .get(10, TimeUnit.SECONDS).getKvs().stream().map(kv -> EtcdClients.string(kv.getKey())).toList();
  }

  private static String lockValue(Client etcd, String key) throws Exception {
    return EtcdClients.string(etcd.getKVClient().get(EtcdClients.bytes(key)).get(10, TimeUnit.SECONDS)
        .getKvs().get(0).getValue());
  }

  private static String srvVSchemaRoutingRules(String json) throws Exception {
    JsonNode rules = JSON.readTree(json).path("routing_rules");
    return rules.isMissingNode() || rules.isNull() ? "{}" : rules.toString();
  }

  /** The PRIMARY denied tables of a shard, from vtctldclient GetShard. */
  private static List<String> deniedPrimaryTables(String json) throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode tc : JSON.readTree(json).path("shard").path("tablet_controls")) {
      JsonNode type = tc.path("tablet_type");
      if (type.asText().equals("PRIMARY") || type.asInt(-1) == 1) {
        tc.path("denied_tables").forEach(t -> out.add(t.asText()));
      }
    }
    return out;
  }
}
