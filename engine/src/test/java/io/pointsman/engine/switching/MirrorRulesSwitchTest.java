package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.Direction;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.RoutingRules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import vschema.Vschema;

/**
 * Mirror rules (Vitess 24, {@code MirrorRules} at the global root) and keyspace routing rules
 * ({@code routing_rules/keyspace/Rules}) are global records that Vitess's RebuildSrvVSchema copies
 * into every cell's SrvVSchema; and Vitess's SwitchTraffic of a MoveTables removes the mirror rules
 * of the moved tables for the tablet types it switches (reads: {@code ks.t@replica},
 * {@code ks.t@rdonly}; writes: {@code ks.t}). A rebuild by pointsman must serve what those records
 * hold, not whatever the cell's previous SrvVSchema held, nor nothing in a cell that had none.
 */
@Timeout(60)
class MirrorRulesSwitchTest {
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;
  private static final List<String> CELLS = List.of("zone1", "zone2");
  private static final MigrationInfo MOVE = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, List.of("customer"), List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0")), 1, false);

  private Client etcd;
  private TopoPaths paths;
  private TopologyStore store;

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    paths = TestEtcd.freshPaths();
    store = new EtcdTopologyStore(etcd, paths);
    CellsAndKeyspaces.create(store, CELLS, List.of("commerce", "customer"));
  }

  @AfterEach
  void tearDown() {
    etcd.close();
  }

  @Test
  void aRebuildServesTheGlobalMirrorAndKeyspaceRoutingRulesInEveryCell() throws Exception {
    Vschema.MirrorRules mirror = mirrorRules(
        rule("commerce.customer@replica", "customer.customer", 50), rule("commerce.product", "other.product", 10));
    Vschema.KeyspaceRoutingRules keyspaceRules = Vschema.KeyspaceRoutingRules.newBuilder()
        .addRules(Vschema.KeyspaceRoutingRule.newBuilder().setFromKeyspace("a").setToKeyspace("b")).build();
    // applied with --skip-rebuild: the records hold them, no cell serves them yet
    put(mirrorRulesKey(), mirror.toByteArray());
    put(keyspaceRoutingRulesKey(), keyspaceRules.toByteArray());
    // a cell added since, without a SrvVSchema
    store.create(store.keys().cellInfo("zone3"), new CellInfo("127.0.0.1:2379", "/vitess/zone3"));

    store.upsert(store.keys().routingRules(),
        current -> RoutingRules.fromMap(Map.of("customer", List.of("commerce.customer"))), NO_LOCKS);
    new SrvVSchemaBuilder(store).rebuild(List.of(), NO_LOCKS);

    for (String cell : List.of("zone1", "zone2", "zone3")) {
      Vschema.SrvVSchema served = served(cell);
      assertThat(served.getMirrorRules()).as("mirror rules served in %s", cell).isEqualTo(mirror);
      assertThat(served.getKeyspaceRoutingRules()).as("keyspace routing rules served in %s", cell)
          .isEqualTo(keyspaceRules);
    }
  }

  @Test
  void switchingReadsThenWritesRemovesTheMovedTablesMirrorRulesOfThoseTypesOnly() throws Exception {
    Vschema.MirrorRule product = rule("commerce.product", "other.product", 10);
    put(mirrorRulesKey(), mirrorRules(rule("commerce.customer", "customer.customer", 5),
        rule("commerce.customer@replica", "customer.customer", 50),
        rule("commerce.customer@rdonly", "customer.customer", 50), product).toByteArray());
    new SrvVSchemaBuilder(store).rebuild(List.of(), NO_LOCKS);
    TopologySwitcher switcher = new TopologySwitcher(store);

    switcher.switchReads(MOVE, List.of(TabletType.REPLICA, TabletType.RDONLY), List.of(), Direction.FORWARD,
        NO_LOCKS);
    Vschema.MirrorRules afterReads = mirrorRules(rule("commerce.customer", "customer.customer", 5), product);
    assertThat(Vschema.MirrorRules.parseFrom(get(mirrorRulesKey()))).isEqualTo(afterReads);
    for (String cell : CELLS) {
      assertThat(served(cell).getMirrorRules()).as("served in %s after reads", cell).isEqualTo(afterReads);
    }

    switcher.changeRouting(MOVE, NO_LOCKS);
    Vschema.MirrorRules afterWrites = mirrorRules(product);
    assertThat(Vschema.MirrorRules.parseFrom(get(mirrorRulesKey()))).isEqualTo(afterWrites);
    for (String cell : CELLS) {
      assertThat(served(cell).getMirrorRules()).as("served in %s after writes", cell).isEqualTo(afterWrites);
    }
  }

  @Test
  void aReadSwitchRemovesTheMirrorRulesInTheCommitThatMovesTheRoutingRulesAndServesThem() throws Exception {
    Vschema.MirrorRule product = rule("commerce.product", "other.product", 10);
    put(mirrorRulesKey(), mirrorRules(rule("commerce.customer@replica", "customer.customer", 50), product)
        .toByteArray());
    new SrvVSchemaBuilder(store).rebuild(List.of(), NO_LOCKS);

    new TopologySwitcher(store).switchReads(MOVE, List.of(TabletType.REPLICA), List.of(), Direction.FORWARD,
        NO_LOCKS);

    long mirrorRevision = modRevision(mirrorRulesKey());
    assertThat(mirrorRevision).as("the mirror rules and the routing rules saved in one etcd transaction")
        .isEqualTo(modRevision(store.keys().routingRules().key()));
    for (String cell : CELLS) {
      assertThat(modRevision(store.keys().srvVSchema(cell).key())).as("%s served in that transaction", cell)
          .isEqualTo(mirrorRevision);
      assertThat(served(cell).getMirrorRules()).isEqualTo(mirrorRules(product));
    }
  }

  @Test
  void aWriteSwitchThatRemovesTheLastMirrorRuleDeletesTheRecordAsItMovesTheRoutingRules() throws Exception {
    put(mirrorRulesKey(), mirrorRules(rule("commerce.customer", "customer.customer", 5)).toByteArray());
    new SrvVSchemaBuilder(store).rebuild(List.of(), NO_LOCKS);
    long before = etcd.getKVClient().get(bytes(mirrorRulesKey())).get().getHeader().getRevision();

    new TopologySwitcher(store).changeRouting(MOVE, NO_LOCKS);

    long moved = modRevision(store.keys().routingRules().key());
    assertThat(moved).isGreaterThan(before);
    assertThat(etcd.getKVClient().get(bytes(mirrorRulesKey())).get().getKvs()).as("no key for no mirror rules")
        .isEmpty();
    assertThat(etcd.getKVClient().get(bytes(mirrorRulesKey()), GetOption.builder().withRevision(moved - 1).build())
        .get().getKvs()).as("the mirror rules were still there just before the routing rules moved").hasSize(1);
    for (String cell : CELLS) {
      assertThat(served(cell).getMirrorRules().getRulesList()).as("%s serves no mirror rule", cell).isEmpty();
    }
  }

  private long modRevision(String key) throws Exception {
    return etcd.getKVClient().get(bytes(key)).get().getKvs().get(0).getModRevision();
  }

  private String mirrorRulesKey() {
    return paths.globalRoot() + "/MirrorRules";
  }

  private String keyspaceRoutingRulesKey() {
    return paths.globalRoot() + "/routing_rules/keyspace/Rules";
  }

  private Vschema.SrvVSchema served(String cell) throws Exception {
    return Vschema.SrvVSchema.parseFrom(get(store.keys().srvVSchema(cell).key()));
  }

  private static Vschema.MirrorRules mirrorRules(Vschema.MirrorRule... rules) {
    return Vschema.MirrorRules.newBuilder().addAllRules(List.of(rules)).build();
  }

  private static Vschema.MirrorRule rule(String from, String to, float percent) {
    return Vschema.MirrorRule.newBuilder().setFromTable(from).setToTable(to).setPercent(percent).build();
  }

  private static ByteSequence bytes(String key) {
    return ByteSequence.from(key.getBytes());
  }

  private void put(String key, byte[] value) throws Exception {
    etcd.getKVClient().put(ByteSequence.from(key.getBytes()), ByteSequence.from(value)).get();
  }

  private byte[] get(String key) throws Exception {
    GetResponse r = etcd.getKVClient().get(ByteSequence.from(key.getBytes())).get();
    assertThat(r.getKvs()).as("key %s", key).hasSize(1);
    return r.getKvs().get(0).getValue().getBytes();
  }
}
