package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.LockLostException;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.errors.RecordChangedException;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.lock.LockToken;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.TabletType;
import io.pointsman.api.model.UnfinishedCleanup;
import io.pointsman.engine.etcd.EtcdClients;
import io.pointsman.engine.testing.EtcdTestFixture;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.RoutingRule;
import io.pointsman.engine.topo.model.RoutingRules;
import io.pointsman.engine.topo.model.Shard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(120)
class EtcdTopologyStoreTest extends EtcdTestFixture {
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;

  EtcdTopologyStoreTest() {
    super(Part.STORE);
  }

  /** An action's write arrives with its LockSet as an activity input; an empty one must not pass as 'unlocked'. */
  @Test
  void aWriteWithAnEmptyLockSetIsRefusedAndChangesNothing() {
    RecordKey<Shard> key = shardKey("customer", "0");
    LockSet empty = new LockSet(List.of());

    assertThatThrownBy(() -> store.upsert(key, current -> shard("0"), empty))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("none were given");
    assertThatThrownBy(() -> store.commit(List.of(RecordWrite.create(key, shard("0"))), empty))
        .isInstanceOf(PointsmanException.class);
    assertThat(store.get(key)).isEmpty();
  }

  private RecordKey<Shard> shardKey(String ks, String shard) {
    return store.keys().shard(ks, shard);
  }

  private Shard shard(String name) {
    return Shard.of(KeyRange.ofShard(name), new TabletAlias("zone1", 100), true);
  }

  /** Keyspace customer and its serving shard -80, where the fenced-write tests write. */
  private Versioned<Shard> customerShard() {
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    return store.create(shardKey("customer", "-80"), shard("-80"));
  }

  /** A fenced update under {@code lock} that takes customer/-80 out of serving, and that it did. */
  private void assertUpdateTakesServingOffUnder(LockToken lock) {
    store.update(shardKey("customer", "-80"), s -> s.withPrimaryServing(false), LockSet.of(lock));
    assertThat(store.getRequired(shardKey("customer", "-80")).value().isPrimaryServing()).isFalse();
  }

  @Test
  void getReturnsTheRecordWithItsModRevision() {
    Versioned<Shard> created = store.create(shardKey("ks", "-80"), shard("-80"));
    Versioned<Shard> read = store.get(shardKey("ks", "-80")).orElseThrow();
    assertThat(read.value()).isEqualTo(shard("-80"));
    assertThat(read.modRevision()).isEqualTo(created.modRevision()).isPositive();
    assertThat(store.get(shardKey("ks", "80-"))).isEmpty();
  }

  /** pointsman's own records (no Vitess message exists for them) are JSON an operator can read. */
  @Test
  void pointsmansOwnRecordsAreStoredAsJson() throws Exception {
    MigrationInfo info = new MigrationInfo("wf", "commerce", "customer", MigrationType.TABLES, List.of("customer"),
        List.of("0"), List.of("-80", "80-"), List.of(), 42, true);
    UnfinishedCleanup cleanup = new UnfinishedCleanup("CompleteMigration", info);
    RecordKey<UnfinishedCleanup> key = store.keys().unfinishedCleanup("customer", "wf");

    store.create(key, cleanup);

    assertThat(store.getRequired(key).value()).isEqualTo(cleanup);
    assertThat(new String(raw(key.key()), java.nio.charset.StandardCharsets.UTF_8))
        .startsWith("{").contains("\"action\":\"CompleteMigration\"");
  }

  @Test
  void createIsCreateIfAbsent() {
    store.create(shardKey("ks", "0"), shard("0"));
    assertThatThrownBy(() -> store.create(shardKey("ks", "0"), shard("0").withPrimaryServing(false)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
    assertThat(store.getRequired(shardKey("ks", "0")).value().isPrimaryServing()).isTrue();
  }

  @Test
  void updateAppliesTheMutatorAndSkipsNoOpWrites() {
    Versioned<Shard> v1 = store.create(shardKey("ks", "0"), shard("0"));
    Versioned<Shard> same = store.update(shardKey("ks", "0"), s -> s, NO_LOCKS);
    assertThat(same.modRevision()).isEqualTo(v1.modRevision());
    Versioned<Shard> v2 = store.update(shardKey("ks", "0"), s -> s.withPrimaryServing(false), NO_LOCKS);
    assertThat(v2.modRevision()).isGreaterThan(v1.modRevision());
    assertThat(store.getRequired(shardKey("ks", "0")).value().isPrimaryServing()).isFalse();
  }

  @Test
  void updateOfAMissingRecordIsNotFound() {
    assertThatThrownBy(() -> store.update(shardKey("ks", "0"), s -> s, NO_LOCKS))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining(paths.shard("ks", "0"));
  }

  @Test
  void manyThreadsUpdatingOneRecordLoseNoUpdate() throws Exception {
    RecordKey<RoutingRules> key = store.keys().routingRules();
    store.create(key, RoutingRules.EMPTY);
    int threads = 6;
    int perThread = 15;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger succeeded = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(pool.submit(() -> {
        for (int i = 0; i < perThread; i++) {
          String from = "t" + thread + "_" + i;
          store.update(key, rr -> {
            var m = rr.asMap();
            m.put(from, List.of("ks." + from));
            return RoutingRules.fromMap(m);
          }, NO_LOCKS);
          succeeded.incrementAndGet();
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get(100, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(succeeded.get()).isEqualTo(threads * perThread);
    assertThat(store.getRequired(key).value().rules()).hasSize(threads * perThread);
  }

  @Test
  void upsertCreatesUpdatesAndDeletesOnNull() {
    RecordKey<RoutingRules> key = store.keys().routingRules();
    RoutingRules one = new RoutingRules(List.of(new RoutingRule("t", List.of("commerce.t"))));
    assertThat(store.upsert(key, cur -> cur.orElse(one), NO_LOCKS)).isPresent();
    assertThat(store.getRequired(key).value()).isEqualTo(one);
    assertThat(store.upsert(key, cur -> null, NO_LOCKS)).isEmpty();
    assertThat(store.get(key)).isEmpty();
  }

  @Test
  void deleteRemovesTheRecordAndReportsWhetherItExisted() {
    store.create(shardKey("ks", "0"), shard("0"));
    assertThat(store.delete(shardKey("ks", "0"), NO_LOCKS)).isTrue();
    assertThat(store.get(shardKey("ks", "0"))).isEmpty();
    assertThat(store.delete(shardKey("ks", "0"), NO_LOCKS)).isFalse();
  }

  @Test
  void listingSkipsLockKeys() throws Exception {
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    store.create(store.keys().keyspace("commerce"), Keyspace.normal());
    store.create(shardKey("customer", "-80"), shard("-80"));
    store.create(shardKey("customer", "80-"), shard("80-"));
    takeLock(paths.keyspaceDir("customer"));
    takeLock(paths.shardDir("customer", "-80"));

    assertThat(store.listKeyspaces()).containsExactly("commerce", "customer");
    assertThat(store.listShards("customer")).containsExactly("-80", "80-");
    assertThat(store.listShards("commerce")).isEmpty();
  }

  @Test
  void listingShardsOfAMissingKeyspaceNamesIt() {
    assertThatThrownBy(() -> store.listShards("nosuch"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageContaining("nosuch");
  }

  @Test
  void badNamesFailBeforeAnythingReachesEtcd() throws Exception {
    assertThatThrownBy(() -> store.keys().shard("customer", "80-40")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> store.listShards("a/../b")).isInstanceOf(PointsmanException.class);
    long keys = etcd.getKVClient().get(EtcdClients.bytes(paths.globalRoot()),
        GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
    assertThat(keys).isZero();
  }

  @Test
  void fencedWriteSucceedsWhileTheLockIsHeld() throws Exception {
    customerShard();
    assertUpdateTakesServingOffUnder(takeLock(paths.keyspaceDir("customer")));
  }

  @Test
  void fencedWriteAfterTheLeaseIsRevokedIsLockLostAndChangesNothing() throws Exception {
    Versioned<Shard> before = customerShard();
    LockToken stale = takeLock(paths.keyspaceDir("customer"));
    etcd.getLeaseClient().revoke(stale.leaseId()).get(10, TimeUnit.SECONDS);
    LockToken fresh = takeLock(paths.keyspaceDir("customer"));

    assertThatThrownBy(() -> store.update(shardKey("customer", "-80"), s -> s.withPrimaryServing(false),
        LockSet.of(stale)))
        .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.lockKey()).isEqualTo(stale.key()))
        .hasMessageContaining("is lost");
    Versioned<Shard> after = store.getRequired(shardKey("customer", "-80"));
    assertThat(after.modRevision()).isEqualTo(before.modRevision());
    assertThat(after.value().isPrimaryServing()).isTrue();

    assertUpdateTakesServingOffUnder(fresh);
  }

  @Test
  void commitToldRecordChangedApartFromLockLost() throws Exception {
    Versioned<Shard> read = customerShard();
    LockToken lock = takeLock(paths.keyspaceDir("customer"));
    store.update(shardKey("customer", "-80"), s -> s.withPrimary(new TabletAlias("zone1", 300)), LockSet.of(lock));

    assertThatThrownBy(() -> store.commit(List.of(RecordWrite.replace(read, read.value().withPrimaryServing(false))),
        LockSet.of(lock)))
        .isInstanceOf(RecordChangedException.class)
        .hasMessageContaining("changed since it was read");
    assertThat(store.getRequired(shardKey("customer", "-80")).value().isPrimaryServing()).isTrue();
  }

  @Test
  void commitOfMoreWritesThanOneTransactionHoldsIsSplitIntoGuardedParts() throws Exception {
    EtcdTopologyStore small = new EtcdTopologyStore(etcd, paths, StoreOptions.DEFAULT.withMaxTxnOps(10));
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    LockToken lock = takeLock(paths.keyspaceDir("customer"));
    List<RecordWrite<?>> writes = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      writes.add(RecordWrite.create(store.keys().keyspace("ks" + i), Keyspace.normal()));
    }
    long rev = small.commit(writes, LockSet.of(lock));
    assertThat(store.listKeyspaces()).hasSize(41);
    // 40 writes with one lock guard each part: 9 writes per part, so 5 transactions, 5 revisions.
    long first = store.getRequired(store.keys().keyspace("ks0")).modRevision();
    assertThat(rev - first).isEqualTo(4);
  }

  @Test
  void aSplitCommitStopsAtTheFirstPartWhoseLockIsGone() throws Exception {
    EtcdTopologyStore small = new EtcdTopologyStore(etcd, paths, StoreOptions.DEFAULT.withMaxTxnOps(3));
    store.create(store.keys().keyspace("customer"), Keyspace.normal());
    LockToken lock = takeLock(paths.keyspaceDir("customer"));
    etcd.getLeaseClient().revoke(lock.leaseId()).get(10, TimeUnit.SECONDS);
    List<RecordWrite<?>> writes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      writes.add(RecordWrite.create(store.keys().keyspace("ks" + i), Keyspace.normal()));
    }
    assertThatThrownBy(() -> small.commit(writes, LockSet.of(lock))).isInstanceOf(LockLostException.class);
    assertThat(store.listKeyspaces()).containsExactly("customer");
  }

  @Test
  void watchDeliversTheCurrentStateAndEveryChangeInOrder() {
    RecordKey<Shard> key = shardKey("customer", "-80");
    List<Optional<Versioned<Shard>>> seen = new CopyOnWriteArrayList<>();
    try (TopoWatch w = store.watch(key, seen::add)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 1);
      assertThat(seen.get(0)).isEmpty();
      store.create(key, shard("-80"));
      store.update(key, s -> s.withDeniedTables(TabletType.PRIMARY, List.of("t"), false), NO_LOCKS);
      store.delete(key, NO_LOCKS);
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 4);
      assertThat(seen.get(1).orElseThrow().value().deniedTables(TabletType.PRIMARY)).isEmpty();
      assertThat(seen.get(2).orElseThrow().value().deniedTables(TabletType.PRIMARY)).containsExactly("t");
      assertThat(seen.get(3)).isEmpty();
    }
  }

  private void putRaw(String key, byte[] value) throws Exception {
    etcd.getKVClient().put(EtcdClients.bytes(key), ByteSequence.from(value)).get(10, TimeUnit.SECONDS);
  }

  private byte[] raw(String key) throws Exception {
    return etcd.getKVClient().get(EtcdClients.bytes(key)).get(10, TimeUnit.SECONDS).getKvs().get(0).getValue().getBytes();
  }

  /** The stored shard as Vitess 24 writes it, plus what a newer Vitess adds (an unknown field). */
  private static io.vitess.proto.Topodata.Shard vitessShard() {
    return TopoCodecTest.withFutureField(io.vitess.proto.Topodata.Shard.newBuilder()
        .setPrimaryAlias(io.vitess.proto.Topodata.TabletAlias.newBuilder().setCell("zone1").setUid(100))
        .addTabletControls(io.vitess.proto.Topodata.Shard.TabletControl.newBuilder()
            .setTabletType(io.vitess.proto.Topodata.TabletType.REPLICA).addDeniedTables("a").setAllowReads(true))
        .setIsPrimaryServing(true)
        .build());
  }

  private static void assertKept(byte[] stored) throws Exception {
    var m = io.vitess.proto.Topodata.Shard.parseFrom(stored);
    assertThat(m.getTabletControlsList()).filteredOn(tc -> tc.getTabletType() == io.vitess.proto.Topodata.TabletType.REPLICA)
        .singleElement().satisfies(tc -> assertThat(tc.getAllowReads()).isTrue());
    assertThat(m.getUnknownFields().hasField(TopoCodecTest.FUTURE_FIELD)).as("unknown field kept").isTrue();
  }

  @Test
  void recordsAreStoredAsVitessBinaryProtobuf() throws Exception {
    store.create(shardKey("ks", "-80"), shard("-80"));
    var m = io.vitess.proto.Topodata.Shard.parseFrom(raw(paths.shard("ks", "-80")));
    assertThat(m.getKeyRange().getEnd().toByteArray()).containsExactly((byte) 0x80);
    assertThat(m.getPrimaryAlias().getUid()).isEqualTo(100);
    assertThat(m.getIsPrimaryServing()).isTrue();
  }

  @Test
  void anUpdateKeepsFieldsTheModelLacksAndFieldsNewerThanVitess24() throws Exception {
    String key = paths.shard("ks", "0");
    putRaw(key, TopoCodec.bytes(vitessShard()));
    store.update(shardKey("ks", "0"), s -> s.withDeniedTables(TabletType.PRIMARY, List.of("t"), false), NO_LOCKS);
    byte[] after = raw(key);
    assertKept(after);
    assertThat(io.vitess.proto.Topodata.Shard.parseFrom(after).getTabletControlsList())
        .extracting(tc -> tc.getTabletType()).containsExactly(io.vitess.proto.Topodata.TabletType.REPLICA,
            io.vitess.proto.Topodata.TabletType.PRIMARY);
  }

  /**
   * A record rewritten beside an update is put again byte for byte (fields newer than the model
   * included) at the update's revision, so its watchers hear of it; with nothing to update, it is
   * not written, and a record that does not exist is not created.
   */
  @Test
  void recordsRewrittenBesideAnUpdateArePutAgainByteForByteInItsRevisionAndOnlyWhenItChangesSomething()
      throws Exception {
    String watched = paths.shard("ks", "watched");
    byte[] bytes = TopoCodec.bytes(vitessShard());
    putRaw(watched, bytes);
    store.create(shardKey("ks", "0"), shard("0"));
    java.util.Map<RecordKey<Shard>, java.util.function.UnaryOperator<Shard>> edits =
        java.util.Map.of(shardKey("ks", "0"), s -> s.withPrimaryServing(false));
    List<RecordKey<?>> rewritten = List.of(shardKey("ks", "watched"), shardKey("ks", "absent"));

    store.updateAll(edits, rewritten, NO_LOCKS);

    long updated = store.getRequired(shardKey("ks", "0")).modRevision();
    assertThat(store.getRequired(shardKey("ks", "watched")).modRevision()).isEqualTo(updated);
    assertThat(raw(watched)).isEqualTo(bytes);
    assertThat(store.get(shardKey("ks", "absent"))).isEmpty();

    store.updateAll(edits, rewritten, NO_LOCKS); // nothing left to change

    assertThat(store.getRequired(shardKey("ks", "watched")).modRevision()).isEqualTo(updated);
  }

  /**
   * A cell's SrvVSchema written in the commit that saves the routing rules it serves holds the
   * rules as saved (the message just encoded, fields newer than the model included, as Vitess's
   * rebuild serves the record), not the rules written over the cell's previous copy.
   */
  @Test
  void aCellWrittenWithTheRoutingRulesItServesHoldsThemAsSaved() throws Exception {
    vschema.Vschema.RoutingRule newer = TopoCodecTest.withFutureField(
        vschema.Vschema.RoutingRule.newBuilder().setFromTable("t").addToTables("src.t").build());
    putRaw(paths.routingRules(), TopoCodec.bytes(vschema.Vschema.RoutingRules.newBuilder().addRules(newer).build()));
    Versioned<RoutingRules> rules = store.getRequired(store.keys().routingRules());
    RecordKey<io.pointsman.engine.topo.model.SrvVSchema> cellKey = store.keys().srvVSchema("zone1");
    // the cell serves the rule without the newer field
    Versioned<io.pointsman.engine.topo.model.SrvVSchema> cell = store.create(cellKey,
        new io.pointsman.engine.topo.model.SrvVSchema(java.util.Map.of(), new RoutingRules(List.of(
            new RoutingRule("t", List.of("src.t")))), null));
    RoutingRules next = new RoutingRules(List.of(rules.value().rules().get(0),
        new RoutingRule("src.t", List.of("src.t"))));

    store.commit(List.of(RecordWrite.replace(rules, next), RecordWrite.replace(cell, cell.value().withRoutingRules(next))),
        NO_LOCKS);

    vschema.Vschema.RoutingRules saved = vschema.Vschema.RoutingRules.parseFrom(raw(paths.routingRules()));
    vschema.Vschema.SrvVSchema served = vschema.Vschema.SrvVSchema.parseFrom(raw(paths.srvVSchema("zone1")));
    assertThat(saved.getRules(0).getUnknownFields().hasField(TopoCodecTest.FUTURE_FIELD)).isTrue();
    assertThat(served.getRoutingRules()).isEqualTo(saved);
  }

  @Test
  void aWriteOfAValueReadElsewhereIsEncodedOverTheBytesAtItsRevision() throws Exception {
    String key = paths.shard("ks", "0");
    putRaw(key, TopoCodec.bytes(vitessShard()));
    Versioned<Shard> read = store.getRequired(shardKey("ks", "0"));
    // another store (another process) has not read it: it reads the bytes back at the revision
    EtcdTopologyStore other = new EtcdTopologyStore(etcd, paths);
    other.commit(List.of(RecordWrite.replace(read, read.value().withPrimaryServing(false))), NO_LOCKS);
    assertKept(raw(key));
    assertThat(store.getRequired(shardKey("ks", "0")).value().isPrimaryServing()).isFalse();
  }

  /**
   * A record is decoded once at a revision: reads of it get the value decoded first, or the value
   * written there; a new revision is decoded again.
   */
  @Test
  void aRecordAtARevisionIsDecodedOnceAndAWrittenValueIsWhatItsReadersGet() {
    RecordKey<Shard> key = shardKey("ks", "0");
    Versioned<Shard> created = store.create(key, shard("0"));
    Versioned<Shard> again = store.getRequired(key);
    assertThat(again.modRevision()).isEqualTo(created.modRevision());
    assertThat(again.value()).isSameAs(created.value());

    Shard next = created.value().withPrimaryServing(false);
    store.commit(List.of(RecordWrite.replace(created, next)), NO_LOCKS);
    assertThat(store.getRequired(key).value()).isSameAs(next);

    // written by another store: this one has no value at that revision and decodes what etcd holds
    EtcdTopologyStore other = new EtcdTopologyStore(etcd, paths);
    Versioned<Shard> read = other.getRequired(key);
    other.commit(List.of(RecordWrite.replace(read, next.withPrimaryServing(true))), NO_LOCKS);
    Versioned<Shard> decoded = store.getRequired(key);
    assertThat(decoded.value()).isEqualTo(next.withPrimaryServing(true)).isNotSameAs(next);
    assertThat(decoded.modRevision()).isGreaterThan(read.modRevision());
  }

  /**
   * A record written again as it is (a rewrite for its watchers, by this store or another) has a
   * new revision but the same bytes: its readers and watchers get the value decoded before, not a
   * new decode (a SrvVSchema of a thousand tables takes milliseconds to decode, in the window).
   */
  @Test
  void aRecordWrittenAgainAsItIsIsNotDecodedAgain() throws Exception {
    RecordKey<Shard> key = shardKey("ks", "0");
    store.create(key, shard("0"));
    EtcdTopologyStore other = new EtcdTopologyStore(etcd, paths);
    Versioned<Shard> seen = other.getRequired(key);
    List<Shard> watched = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (TopoWatch w = other.watch(key, v -> v.ifPresent(x -> watched.add(x.value())))) {
      await().until(() -> !watched.isEmpty());
      Versioned<Shard> read = store.getRequired(key);
      store.commit(List.of(RecordWrite.replace(read, read.value())), NO_LOCKS); // the very bytes again

      await().until(() -> watched.size() >= 2);
      Versioned<Shard> again = other.getRequired(key);
      assertThat(again.modRevision()).isGreaterThan(seen.modRevision());
      assertThat(again.value()).isSameAs(seen.value());
      assertThat(watched.get(watched.size() - 1)).isSameAs(seen.value());

      // other bytes are decoded, of course
      Versioned<Shard> now = store.getRequired(key);
      store.commit(List.of(RecordWrite.replace(now, now.value().withPrimaryServing(false))), NO_LOCKS);
      assertThat(other.getRequired(key).value()).isNotSameAs(seen.value())
          .isEqualTo(seen.value().withPrimaryServing(false));
    }
  }

  @Test
  void aWriteOverARevisionTheKeyNeverHadIsRecordChanged() throws Exception {
    Versioned<Shard> read = store.create(shardKey("ks", "0"), shard("0"));
    Versioned<Shard> stale = new Versioned<>(read.key(), read.value(), read.modRevision() - 1, read.createRevision());
    EtcdTopologyStore other = new EtcdTopologyStore(etcd, paths);
    assertThatThrownBy(() -> other.commit(List.of(RecordWrite.replace(stale, read.value().withPrimaryServing(false))),
        NO_LOCKS)).isInstanceOf(RecordChangedException.class);
    assertThat(store.getRequired(shardKey("ks", "0")).modRevision()).isEqualTo(read.modRevision());
  }

  static Stream<Arguments> valuesThatAreNotAShard() {
    byte[] whole = TopoCodec.encode("k", Shard.of(KeyRange.ofShard("-80"), new TabletAlias("zone1", 100), true),
        null, Shard.class);
    return Stream.of(
        Arguments.of("JSON of the old layout",
            "{\"key_range\":{\"end\":\"80\"},\"is_primary_serving\":true}".getBytes(StandardCharsets.UTF_8)),
        Arguments.of("garbage", new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01}),
        // cut inside primary_alias; a cut at a field boundary leaves a valid, shorter message,
        // which no protobuf reader can tell from one written that way
        Arguments.of("truncated", Arrays.copyOf(whole, 4)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesThatAreNotAShard")
  void aValueThatIsNotItsVitessMessageFailsNamingKeyAndMessageAndNothingIsWritten(String what, byte[] value)
      throws Exception {
    String key = paths.shard("customer", "-80");
    putRaw(key, value);
    String expected = "record at " + key + " is not a valid topodata.Shard: ";
    assertThatThrownBy(() -> store.get(shardKey("customer", "-80")))
        .isInstanceOf(PointsmanException.class).hasMessageStartingWith(expected);
    assertThatThrownBy(() -> store.update(shardKey("customer", "-80"), s -> s.withPrimaryServing(false), NO_LOCKS))
        .isInstanceOf(PointsmanException.class).hasMessageStartingWith(expected);
    assertThatThrownBy(() -> store.upsert(shardKey("customer", "-80"), s -> shard("-80"), NO_LOCKS))
        .isInstanceOf(PointsmanException.class).hasMessageStartingWith(expected);
    assertThat(raw(key)).isEqualTo(value);
  }
}
