package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.RecordChangedException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.RecordKey;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.ShardRoutingRule;
import io.pointsman.engine.topo.model.ShardRoutingRules;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.VSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two switches on disjoint keyspaces rebuild the same SrvVSchema. Switch A reads the global records
 * and builds; switch B then changes the routing rules and rebuilds every cell; A then reads the
 * cells (now B's version) and writes its build. If A's commit guarded only the cell records it read,
 * it would pass and put the old rules back in every cell while B reports success. The interleaving
 * is made deterministic by running A's read and write as the two halves the builder offers.
 */
@Timeout(60)
class SrvVSchemaRebuildRaceTest {
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;
  private static final List<String> CELLS = List.of("zone1", "zone2");

  private Client etcd;
  private TopoPaths paths;
  private TopologyStore store;

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    paths = TestEtcd.freshPaths();
    store = new EtcdTopologyStore(etcd, paths);
    CellsAndKeyspaces.create(store, CELLS, List.of("commerce", "customer", "product", "inventory"));
  }

  @AfterEach
  void tearDown() {
    etcd.close();
  }

  @Test
  void aBuildFromRulesChangedSinceItWasReadIsRefusedAndTheOtherSwitchsRulesStay() {
    SrvVSchemaBuilder switchA = new SrvVSchemaBuilder(store);
    SrvVSchemaBuilder switchB = new SrvVSchemaBuilder(store);
    SrvVSchemaBuilder.Build staleBuild = switchA.read();

    RoutingRules bRules = RoutingRules.fromMap(Map.of("product", List.of("inventory.product")));
    store.upsert(store.keys().routingRules(), current -> bRules, NO_LOCKS);
    switchB.rebuild(List.of(), NO_LOCKS);
    assertThat(routingRulesIn("zone1")).isEqualTo(bRules);

    assertThatThrownBy(() -> switchA.write(staleBuild, List.of(), NO_LOCKS))
        .isInstanceOf(RecordChangedException.class)
        .hasMessageContaining(store.keys().routingRules().key());
    for (String cell : CELLS) {
      assertThat(routingRulesIn(cell)).as("routing rules served in %s", cell).isEqualTo(bRules);
    }
  }

  @Test
  void aChangedVSchemaOrShardRoutingRuleRefusesTheBuildToo() {
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(store);
    // each build below has something to write: routing rules no cell serves yet
    store.upsert(store.keys().routingRules(),
        current -> RoutingRules.fromMap(Map.of("customer", List.of("customer.customer"))), NO_LOCKS);
    SrvVSchemaBuilder.Build beforeVSchema = builder.read();
    store.upsert(store.keys().vschema("inventory"), current -> new VSchema(true, Map.of(), Map.of()), NO_LOCKS);
    assertThatThrownBy(() -> builder.write(beforeVSchema, List.of(), NO_LOCKS))
        .isInstanceOf(RecordChangedException.class)
        .hasMessageContaining(store.keys().vschema("inventory").key());
    assertThat(servedVSchema("zone1", "inventory").sharded()).as("the stale build was not served").isFalse();

    SrvVSchemaBuilder.Build beforeShardRules = builder.read();
    store.upsert(store.keys().shardRoutingRules(),
        current -> new ShardRoutingRules(List.of(new ShardRoutingRule("customer", "commerce", "-80"))), NO_LOCKS);
    assertThatThrownBy(() -> builder.write(beforeShardRules, List.of(), NO_LOCKS))
        .isInstanceOf(RecordChangedException.class)
        .hasMessageContaining(store.keys().shardRoutingRules().key());
    assertThat(routingRulesIn("zone1")).as("the stale build was not served").isEqualTo(RoutingRules.EMPTY);

    builder.rebuild(List.of(), NO_LOCKS);
    assertThat(servedVSchema("zone2", "inventory").sharded()).isTrue();
    assertThat(store.getRequired(store.keys().srvVSchema("zone2")).value().shardRoutingRules().rules()).hasSize(1);
  }

  @Test
  void editedRulesAreSavedAndServedInEveryCellInOneRevision() {
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(store);
    RoutingRules rules = RoutingRules.fromMap(Map.of("customer", List.of("customer.customer")));

    builder.rebuild(current -> rules, List.of(), NO_LOCKS);

    var saved = store.getRequired(store.keys().routingRules());
    assertThat(saved.value()).isEqualTo(rules);
    for (String cell : CELLS) {
      var served = store.getRequired(store.keys().srvVSchema(cell));
      assertThat(served.value().routingRules()).as("rules served in %s", cell).isEqualTo(rules);
      assertThat(served.modRevision()).as("%s written with the rules, in the same transaction", cell)
          .isEqualTo(saved.modRevision());
    }
  }

  @Test
  void anEditAfterALostRaceIsAppliedToTheRulesThatWonAndTheirOwnerKeepsThem() {
    RoutingRules theirs = RoutingRules.fromMap(Map.of("product", List.of("inventory.product")));
    AtomicInteger edits = new AtomicInteger();
    new SrvVSchemaBuilder(store).rebuild(current -> {
      if (edits.incrementAndGet() == 1) {
        // another switch saves its rules between this build's read and its write
        store.upsert(store.keys().routingRules(), c -> theirs, NO_LOCKS);
      }
      return withRule(current, "customer", "customer.customer");
    }, List.of(), NO_LOCKS);

    assertThat(edits).hasValue(2);
    RoutingRules both = withRule(theirs, "customer", "customer.customer");
    assertThat(store.getRequired(store.keys().routingRules()).value()).isEqualTo(both);
    assertThat(routingRulesIn("zone2")).isEqualTo(both);
  }

  @Test
  void removingTheLastRuleDeletesTheRecordAndTheCellsServeNone() {
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(store);
    builder.rebuild(current -> RoutingRules.fromMap(Map.of("customer", List.of("customer.customer"))), List.of(),
        NO_LOCKS);

    builder.rebuild(current -> RoutingRules.EMPTY, List.of(), NO_LOCKS);

    assertThat(store.get(store.keys().routingRules())).isEmpty();
    assertThat(routingRulesIn("zone1")).isEqualTo(RoutingRules.EMPTY);
  }

  @Test
  void rulesEditedForSomeCellsAreSavedGloballyAndServedOnlyThere() {
    new SrvVSchemaBuilder(store).rebuild(
        current -> RoutingRules.fromMap(Map.of("customer", List.of("customer.customer"))), List.of("zone1"), NO_LOCKS);

    assertThat(store.getRequired(store.keys().routingRules()).value().rules()).hasSize(1);
    assertThat(routingRulesIn("zone1").rules()).hasSize(1);
    assertThat(routingRulesIn("zone2")).as("a cell not rebuilt keeps serving what it served").isEqualTo(RoutingRules.EMPTY);
  }

  @Test
  void aRewriteAfterARebuildWritesEveryCellAgainAsTheRebuildLeftIt() {
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(store);
    RoutingRules rules = RoutingRules.fromMap(Map.of("customer", List.of("customer.customer")));
    SrvVSchemaBuilder.Rebuilt rebuilt = builder.rebuild(current -> rules, List.of(), NO_LOCKS);
    long rebuiltAt = store.getRequired(store.keys().routingRules()).modRevision();
    assertThat(rebuilt.cells()).extracting(v -> v.key().key())
        .containsExactlyInAnyOrderElementsOf(CELLS.stream().map(c -> store.keys().srvVSchema(c).key()).toList());
    assertThat(rebuilt.cells()).allSatisfy(v -> assertThat(v.modRevision()).isEqualTo(rebuiltAt));

    builder.rewrite(rebuilt, NO_LOCKS);

    for (String cell : CELLS) {
      var served = store.getRequired(store.keys().srvVSchema(cell));
      assertThat(served.modRevision()).as("%s written again", cell).isGreaterThan(rebuiltAt);
      assertThat(served.value().routingRules()).isEqualTo(rules);
    }
  }

  @Test
  void aRewriteAfterARebuildWhoseCellChangedSinceWritesWhatTheCellHoldsNowNotTheRebuild() {
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(store);
    RoutingRules ours = RoutingRules.fromMap(Map.of("customer", List.of("customer.customer")));
    SrvVSchemaBuilder.Rebuilt rebuilt = builder.rebuild(current -> ours, List.of(), NO_LOCKS);
    RoutingRules theirs = RoutingRules.fromMap(Map.of("product", List.of("inventory.product")));
    // another writer rebuilds zone2 after this rebuild
    store.update(store.keys().srvVSchema("zone2"), srv -> srv.withRoutingRules(theirs), NO_LOCKS);
    long theirRevision = store.getRequired(store.keys().srvVSchema("zone2")).modRevision();

    builder.rewrite(rebuilt, NO_LOCKS);

    var zone2 = store.getRequired(store.keys().srvVSchema("zone2"));
    assertThat(zone2.value().routingRules()).as("the other writer's SrvVSchema is not put back").isEqualTo(theirs);
    assertThat(zone2.modRevision()).as("but it is written again").isGreaterThan(theirRevision);
    assertThat(routingRulesIn("zone1")).isEqualTo(ours);
    assertThat(store.getRequired(store.keys().srvVSchema("zone1")).modRevision()).isEqualTo(zone2.modRevision());
  }

  /**
   * A rebuild that moves rules writes every cell it rebuilds, guarded by the cells' revisions, and
   * reads none of their values (a third of a megabyte a cell at a thousand tables, in the write
   * window); one that changes no rule reads them, and writes only the cells that differ.
   */
  @Test
  void aRebuildThatMovesRulesReadsTheCellsRevisionsOnlyAndOneThatChangesNoneComparesThem() {
    List<String> cellReads = new java.util.concurrent.CopyOnWriteArrayList<>();
    TopologyStore counting = (TopologyStore) java.lang.reflect.Proxy.newProxyInstance(
        TopologyStore.class.getClassLoader(), new Class<?>[] {TopologyStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("get") && ((RecordKey<?>) args[0]).type() == SrvVSchema.class) {
            cellReads.add(((RecordKey<?>) args[0]).key());
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    SrvVSchemaBuilder builder = new SrvVSchemaBuilder(counting);
    RoutingRules rules = RoutingRules.fromMap(Map.of("customer", List.of("customer.customer")));

    builder.rebuild(current -> rules, List.of(), NO_LOCKS);

    assertThat(cellReads).as("cells read while the rules moved").isEmpty();
    long moved = store.getRequired(store.keys().routingRules()).modRevision();
    for (String cell : CELLS) {
      assertThat(store.getRequired(store.keys().srvVSchema(cell)).modRevision()).isEqualTo(moved);
      assertThat(routingRulesIn(cell)).isEqualTo(rules);
    }

    builder.rebuild(current -> rules, List.of(), NO_LOCKS); // the same rules again

    assertThat(cellReads).as("cells read to compare").hasSize(CELLS.size());
    for (String cell : CELLS) {
      assertThat(store.getRequired(store.keys().srvVSchema(cell)).modRevision()).as("%s not written again", cell)
          .isEqualTo(moved);
    }
  }

  /**
   * A cell written by another process since this store last saw it: moving the rules reads only
   * its revision, and its bytes at that revision are what the new SrvVSchema is written over, so
   * what pointsman does not model (here a field newer than Vitess 24) stays.
   */
  @Test
  void aCellAnotherProcessWroteKeepsWhatTheModelLacksWhenTheRulesMove() throws Exception {
    String key = store.keys().srvVSchema("zone1").key();
    var kv = etcd.getKVClient();
    byte[] stored = kv.get(io.etcd.jetcd.ByteSequence.from(key.getBytes())).get().getKvs().get(0).getValue().getBytes();
    vschema.Vschema.SrvVSchema newer = vschema.Vschema.SrvVSchema.parseFrom(stored).toBuilder()
        .setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
            .addField(999, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(7).build()).build())
        .build();
    kv.put(io.etcd.jetcd.ByteSequence.from(key.getBytes()), io.etcd.jetcd.ByteSequence.from(newer.toByteArray())).get();
    RoutingRules rules = RoutingRules.fromMap(Map.of("customer", List.of("customer.customer")));

    new SrvVSchemaBuilder(new EtcdTopologyStore(etcd, paths)).rebuild(current -> rules, List.of(), NO_LOCKS);

    vschema.Vschema.SrvVSchema after = vschema.Vschema.SrvVSchema.parseFrom(
        kv.get(io.etcd.jetcd.ByteSequence.from(key.getBytes())).get().getKvs().get(0).getValue().getBytes());
    assertThat(after.getUnknownFields().hasField(999)).as("the newer field kept").isTrue();
    assertThat(after.getRoutingRules().getRulesList()).extracting(r -> r.getFromTable()).containsExactly("customer");
  }

  private static RoutingRules withRule(RoutingRules rules, String from, String to) {
    Map<String, List<String>> map = new LinkedHashMap<>(rules.asMap());
    map.put(from, List.of(to));
    return RoutingRules.fromMap(map);
  }

  private VSchema servedVSchema(String cell, String keyspace) {
    return store.getRequired(store.keys().srvVSchema(cell)).value().keyspaces().get(keyspace);
  }

  private RoutingRules routingRulesIn(String cell) {
    SrvVSchema srv = store.getRequired(store.keys().srvVSchema(cell)).value();
    return srv.routingRules();
  }
}
