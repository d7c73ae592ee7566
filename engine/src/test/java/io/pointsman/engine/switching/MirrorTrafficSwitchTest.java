package io.pointsman.engine.switching;

import static io.pointsman.api.model.TabletType.PRIMARY;
import static io.pointsman.api.model.TabletType.RDONLY;
import static io.pointsman.api.model.TabletType.REPLICA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoPaths;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.CellInfo;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.MirrorRule;
import io.pointsman.engine.topo.model.MirrorRules;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvVSchema;
import io.pointsman.engine.topo.model.TabletControl;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import vschema.Vschema;

/**
 * vtctldclient MirrorTraffic's topology changes against etcd: the global MirrorRules record and
 * every cell's SrvVSchema in one fenced commit (Vitess saves, then rebuilds), and the target
 * primaries' allow_reads, which Vitess sets on the PRIMARY tablet controls there are and creates
 * none.
 */
@Timeout(60)
class MirrorTrafficSwitchTest extends EtcdTestFixture {
  private static final List<String> CELLS = List.of("zone1", "zone2");
  private static final List<String> TABLES = List.of("customer", "corder");
  private static final List<TabletType> ALL = List.of(PRIMARY, REPLICA, RDONLY);
  private static final MigrationInfo MOVE = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, TABLES, List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 2, "0")), 1, false);
  /** Another workflow's rule from a moved table: kept by every edit of this workflow's. */
  private static final MirrorRule ELSEWHERE = new MirrorRule("commerce.customer@replica", "other.customer", 7);

  private TopologySwitcher switcher;
  private LockToken lock;
  private LockSet locks;

  MirrorTrafficSwitchTest() {
    super(Part.STORE);
  }

  @BeforeEach
  void setUp() throws Exception {
    CellsAndKeyspaces.create(store, CELLS, List.of("commerce", "customer"));
    // what MoveTables created: routing rules to the source, the target primaries denying the tables
    store.upsert(store.keys().routingRules(), current -> RoutingRules.fromMap(Map.of(
        "customer", List.of("commerce.customer"), "customer.customer", List.of("commerce.customer"))),
        TopologyStore.UNLOCKED);
    new SrvVSchemaBuilder(store).rebuild(List.of(), TopologyStore.UNLOCKED);
    Shard source = Shard.of(KeyRange.ofShard("0"), TabletAlias.parse("zone1-0000000100"), true);
    store.create(store.keys().shard("commerce", "0"), source.withDeniedTables(PRIMARY, List.of("other"), false));
    store.create(store.keys().shard("customer", "-80"),
        Shard.of(KeyRange.ofShard("-80"), TabletAlias.parse("zone1-0000000200"), true)
            .withDeniedTables(PRIMARY, TABLES, false).withDeniedTables(REPLICA, TABLES, false));
    // a target shard whose PRIMARY control is gone (say, removed by hand): only its REPLICA one left
    store.create(store.keys().shard("customer", "80-"),
        Shard.of(KeyRange.ofShard("80-"), TabletAlias.parse("zone1-0000000300"), true)
            .withDeniedTables(REPLICA, TABLES, false));
    switcher = new TopologySwitcher(store);
    lock = takeLock(paths.keyspaceDir("customer"));
    locks = LockSet.of(lock);
  }

  @Test
  void mirroringSavesTheRulesAndServesThemInEveryCellInOneRevision() throws Exception {
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(ELSEWHERE)));
    // a cell added since the last rebuild, without a SrvVSchema yet
    store.create(store.keys().cellInfo("zone3"), new CellInfo("127.0.0.1:2379", "/vitess/zone3"));
    Map<String, Long> shardRevisions = shardRevisions();

    switcher.mirrorTraffic(MOVE, ALL, 5, locks);

    List<MirrorRule> expected = new ArrayList<>(List.of(ELSEWHERE));
    for (String t : TABLES) {
      for (TabletType type : ALL) {
        expected.add(new MirrorRule("commerce." + t + type.ruleSuffix(), "customer." + t, 5));
      }
    }
    Versioned<MirrorRules> saved = store.getRequired(store.keys().mirrorRules());
    assertThat(saved.value().rules()).containsExactlyElementsOf(expected);
    // in Vitess's own encoding, as vtgate and vtctld read it
    assertThat(Vschema.MirrorRules.parseFrom(raw(paths.mirrorRules())).getRulesList())
        .extracting(Vschema.MirrorRule::getFromTable, Vschema.MirrorRule::getToTable, Vschema.MirrorRule::getPercent)
        .contains(org.assertj.core.groups.Tuple.tuple("commerce.corder@rdonly", "customer.corder", 5f))
        .hasSize(expected.size());
    RoutingRules routing = store.getRequired(store.keys().routingRules()).value();
    for (String cell : List.of("zone1", "zone2", "zone3")) {
      Versioned<SrvVSchema> served = served(cell);
      assertThat(served.value().mirrorRules()).as("served in %s", cell).isEqualTo(saved.value());
      assertThat(served.value().routingRules()).as("routing rules still served in %s", cell).isEqualTo(routing);
      assertThat(served.modRevision()).as("%s served in the commit that saved the rules", cell)
          .isEqualTo(saved.modRevision());
    }
    assertThat(shardRevisions()).as("allow_reads is the caller's: no shard written").isEqualTo(shardRevisions);
  }

  @Test
  void mirroringAgainChangesThePercentAndAtTheSamePercentWritesNothing() {
    switcher.mirrorTraffic(MOVE, List.of(REPLICA), 5, locks);
    switcher.mirrorTraffic(MOVE, List.of(REPLICA), 50, locks);

    Versioned<MirrorRules> saved = store.getRequired(store.keys().mirrorRules());
    assertThat(saved.value().rules()).containsExactly(
        new MirrorRule("commerce.customer@replica", "customer.customer", 50),
        new MirrorRule("commerce.corder@replica", "customer.corder", 50));
    for (String cell : CELLS) {
      assertThat(served(cell).value().mirrorRules()).isEqualTo(saved.value());
    }

    switcher.mirrorTraffic(MOVE, List.of(REPLICA), 50, locks);
    assertThat(store.getRequired(store.keys().mirrorRules()).modRevision()).isEqualTo(saved.modRevision());
    for (String cell : CELLS) {
      assertThat(served(cell).modRevision()).as("%s not written again", cell).isEqualTo(saved.modRevision());
    }
  }

  @Test
  void percentZeroRemovesThoseTypesRulesAndOfTheLastRuleDeletesTheRecord() throws Exception {
    switcher.mirrorTraffic(MOVE, ALL, 5, locks);

    switcher.mirrorTraffic(MOVE, List.of(REPLICA, RDONLY), 0, locks);
    MirrorRules primaryOnly = new MirrorRules(List.of(new MirrorRule("commerce.customer", "customer.customer", 5),
        new MirrorRule("commerce.corder", "customer.corder", 5)));
    assertThat(store.getRequired(store.keys().mirrorRules()).value()).isEqualTo(primaryOnly);
    for (String cell : CELLS) {
      assertThat(served(cell).value().mirrorRules()).isEqualTo(primaryOnly);
    }

    switcher.mirrorTraffic(MOVE, List.of(PRIMARY), 0, locks);
    assertThat(etcd.getKVClient().get(bytes(paths.mirrorRules())).get(10, TimeUnit.SECONDS).getKvs())
        .as("no key for no mirror rules, as Vitess leaves none").isEmpty();
    for (String cell : CELLS) {
      assertThat(served(cell).value().mirrorRules().rules()).as("%s serves no mirror rule", cell).isEmpty();
    }
  }

  @Test
  void percentZeroKeepsAnotherWorkflowsRuleFromTheSameTable() {
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(ELSEWHERE)));
    switcher.mirrorTraffic(MOVE, List.of(REPLICA), 5, locks);

    switcher.mirrorTraffic(MOVE, List.of(REPLICA), 0, locks);

    assertThat(store.getRequired(store.keys().mirrorRules()).value().rules()).containsExactly(ELSEWHERE);
    for (String cell : CELLS) {
      assertThat(served(cell).value().mirrorRules().rules()).containsExactly(ELSEWHERE);
    }
  }

  @ParameterizedTest(name = "percent {0}")
  @ValueSource(floats = {0, 5})
  void aPartialSetOfRulesIsRefusedAsAlreadyExistsAndNothingIsWritten(float percent) {
    // only customer's REPLICA rule of the workflow's two REPLICA rules
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(
        new MirrorRule("commerce.customer@replica", "customer.customer", 5), ELSEWHERE)));
    new SrvVSchemaBuilder(store).rebuild(List.of(), TopologyStore.UNLOCKED);
    long rulesRevision = store.getRequired(store.keys().mirrorRules()).modRevision();
    Map<String, Long> cells = cellRevisions();

    assertThatThrownBy(() -> switcher.mirrorRulesAfter(MOVE, List.of(REPLICA), percent))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS))
        .hasMessageStartingWith("wrong number of pre-existing mirror rules");
    assertThatThrownBy(() -> switcher.mirrorTraffic(MOVE, List.of(REPLICA), percent, locks))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS))
        .hasMessageStartingWith("wrong number of pre-existing mirror rules");

    assertThat(store.getRequired(store.keys().mirrorRules()).modRevision()).isEqualTo(rulesRevision);
    assertThat(cellRevisions()).isEqualTo(cells);
  }

  @Test
  void theRulesAfterAreReadOnly() {
    MirrorRules after = switcher.mirrorRulesAfter(MOVE, List.of(PRIMARY), 10);

    assertThat(after.rules()).containsExactly(new MirrorRule("commerce.customer", "customer.customer", 10),
        new MirrorRule("commerce.corder", "customer.corder", 10));
    assertThat(store.get(store.keys().mirrorRules())).as("nothing saved").isEmpty();
    for (String cell : CELLS) {
      assertThat(served(cell).value().mirrorRules().rules()).isEmpty();
    }
  }

  @Test
  void allowingTargetReadsSetsOnlyTheTargetsExistingPrimaryControlsAndCreatesNone() {
    Shard source = shard("commerce", "0").value();
    Shard withoutPrimaryControl = shard("customer", "80-").value();
    long withoutRevision = shard("customer", "80-").modRevision();

    assertThat(switcher.allowTargetReadsForMirroring(MOVE, locks)).as("a record changed").isTrue();

    Shard minus80 = shard("customer", "-80").value();
    assertThat(minus80.tabletControl(PRIMARY)).get().extracting(TabletControl::allowReads).isEqualTo(true);
    assertThat(minus80.deniedTables(PRIMARY)).as("still denied").containsExactlyElementsOf(TABLES);
    assertThat(minus80.tabletControl(REPLICA)).get().extracting(TabletControl::allowReads).isEqualTo(false);
    assertThat(shard("customer", "80-").value()).as("no PRIMARY control created").isEqualTo(withoutPrimaryControl);
    assertThat(shard("customer", "80-").modRevision()).isEqualTo(withoutRevision);
    assertThat(shard("commerce", "0").value()).as("the source is not a target").isEqualTo(source);

    long revision = shard("customer", "-80").modRevision();
    assertThat(switcher.allowTargetReadsForMirroring(MOVE, locks)).as("idempotent").isFalse();
    assertThat(shard("customer", "-80").modRevision()).isEqualTo(revision);
  }

  @Test
  void readsStayAllowedWhileAnyRuleMirrorsAndAreRefusedAgainOnceTheLastOneGoes() {
    store.create(store.keys().mirrorRules(), new MirrorRules(List.of(ELSEWHERE)));
    assertThat(switcher.allowTargetReadsWhileMirrored(MOVE, locks))
        .as("another workflow's rule does not mirror this one's tables").isFalse();
    assertThat(allowReads()).isFalse();

    switcher.allowTargetReadsForMirroring(MOVE, locks);
    switcher.mirrorTraffic(MOVE, ALL, 5, locks);
    assertThat(switcher.allowTargetReadsWhileMirrored(MOVE, locks)).isFalse();
    switcher.mirrorTraffic(MOVE, List.of(PRIMARY, REPLICA), 0, locks);
    assertThat(switcher.allowTargetReadsWhileMirrored(MOVE, locks)).as("RDONLY still mirrored").isFalse();
    assertThat(allowReads()).isTrue();

    switcher.mirrorTraffic(MOVE, List.of(RDONLY), 0, locks);
    assertThat(switcher.allowTargetReadsWhileMirrored(MOVE, locks)).isTrue();
    assertThat(allowReads()).isFalse();
    assertThat(shard("customer", "80-").value().tabletControl(PRIMARY)).as("still none created").isEmpty();
    assertThat(switcher.allowTargetReadsWhileMirrored(MOVE, locks)).isFalse();
  }

  @Test
  void aReshardHasNoMirroredReadsToAllow() {
    MigrationInfo reshard = new MigrationInfo("reshard", "customer", "customer", MigrationType.SHARDS, List.of(),
        List.of("0"), List.of("-80", "80-"), List.of(new StreamRef("-80", 1, "0")), 1, false);
    Shard before = shard("customer", "-80").value().withPrimaryAllowReads(true);
    store.update(store.keys().shard("customer", "-80"), s -> before, locks);
    long revision = shard("customer", "-80").modRevision();

    assertThat(switcher.allowTargetReadsWhileMirrored(reshard, locks)).isFalse();
    assertThat(shard("customer", "-80").modRevision()).isEqualTo(revision);
  }

  @Test
  void aWriteUnderALockThatIsNoLongerHeldIsRefusedAndChangesNothing() throws Exception {
    etcd.getLeaseClient().revoke(lock.leaseId()).get(10, TimeUnit.SECONDS);
    LockSet stale = locks;
    Map<String, Long> cells = cellRevisions();
    Map<String, Long> shards = shardRevisions();

    assertThatThrownBy(() -> switcher.mirrorTraffic(MOVE, ALL, 5, stale))
        .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.lockKey()).isEqualTo(lock.key()));
    assertThatThrownBy(() -> switcher.allowTargetReadsForMirroring(MOVE, stale))
        .isInstanceOf(LockLostException.class);

    assertThat(store.get(store.keys().mirrorRules())).isEmpty();
    assertThat(cellRevisions()).isEqualTo(cells);
    assertThat(shardRevisions()).isEqualTo(shards);
    assertThat(allowReads()).isFalse();

    // and the same under a lock taken anew
    LockSet fresh = LockSet.of(takeLock(paths.keyspaceDir("customer")));
    assertThat(switcher.allowTargetReadsForMirroring(MOVE, fresh)).isTrue();
    switcher.mirrorTraffic(MOVE, ALL, 5, fresh);
    assertThat(store.getRequired(store.keys().mirrorRules()).value().rules()).hasSize(6);
  }

  @Test
  void aWriteUnderALockThatWasNeverTakenIsRefusedAndChangesNothing() {
    LockSet forged = LockSet.of(new LockToken(TopoPaths.locksPrefix(paths.keyspaceDir("customer")) + "1",
        "keyspace customer", 1, 1, Duration.ofMinutes(2), Instant.now()));
    switcher.mirrorTraffic(MOVE, ALL, 5, locks);
    switcher.allowTargetReadsForMirroring(MOVE, locks);
    long rules = store.getRequired(store.keys().mirrorRules()).modRevision();
    Map<String, Long> cells = cellRevisions();
    Map<String, Long> shards = shardRevisions();

    assertThatThrownBy(() -> switcher.mirrorTraffic(MOVE, ALL, 0, forged)).isInstanceOf(LockLostException.class);
    assertThat(store.getRequired(store.keys().mirrorRules()).modRevision()).isEqualTo(rules);
    assertThat(cellRevisions()).isEqualTo(cells);

    // the rules gone behind its back: allow_reads would now be cleared, but not under a forged lock
    store.delete(store.keys().mirrorRules(), TopologyStore.UNLOCKED);
    assertThatThrownBy(() -> switcher.allowTargetReadsWhileMirrored(MOVE, forged))
        .isInstanceOf(LockLostException.class);
    assertThat(shardRevisions()).isEqualTo(shards);
    assertThat(allowReads()).isTrue();
  }

  private boolean allowReads() {
    return shard("customer", "-80").value().tabletControl(PRIMARY).orElseThrow().allowReads();
  }

  private Versioned<Shard> shard(String keyspace, String name) {
    return store.getRequired(store.keys().shard(keyspace, name));
  }

  private Versioned<SrvVSchema> served(String cell) {
    return store.getRequired(store.keys().srvVSchema(cell));
  }

  private Map<String, Long> cellRevisions() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String cell : store.listCells()) {
      out.put(cell, store.get(store.keys().srvVSchema(cell)).map(Versioned::modRevision).orElse(0L));
    }
    return out;
  }

  private Map<String, Long> shardRevisions() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String ks : List.of("commerce", "customer")) {
      for (String s : store.listShards(ks)) {
        out.put(ks + "/" + s, shard(ks, s).modRevision());
      }
    }
    return out;
  }

  private byte[] raw(String key) throws Exception {
    var kvs = etcd.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
    assertThat(kvs).as("key %s", key).hasSize(1);
    return kvs.get(0).getValue().getBytes();
  }

  private static ByteSequence bytes(String key) {
    return ByteSequence.from(key.getBytes());
  }
}
