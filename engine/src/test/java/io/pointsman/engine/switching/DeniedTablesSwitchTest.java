package io.pointsman.engine.switching;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.pointsman.api.lock.LockSet;
import io.pointsman.api.model.MigrationInfo;
import io.pointsman.api.model.MigrationType;
import io.pointsman.api.model.StreamRef;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopologyStore;
import io.pointsman.engine.topo.Versioned;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.SrvVSchema;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A MoveTables' write switch denies the moved tables on the source shards' primaries and lifts
 * the target's denial, as Vitess's denied tables do, in one etcd transaction for all the shard
 * records: a router never sees the tables denied on both sides or on neither.
 */
@Timeout(60)
class DeniedTablesSwitchTest {
  private static final LockSet NO_LOCKS = TopologyStore.UNLOCKED;
  private static final List<String> TABLES = List.of("customer", "corder");
  private static final MigrationInfo MOVE = new MigrationInfo("commerce2customer", "commerce", "customer",
      MigrationType.TABLES, TABLES, List.of("0"), List.of("-80", "80-"),
      List.of(new StreamRef("-80", 1, "0"), new StreamRef("80-", 2, "0")), 1, false);

  private Client etcd;
  private TopologyStore store;
  private TopologySwitcher switcher;

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    store = new EtcdTopologyStore(etcd, TestEtcd.freshPaths());
    CellsAndKeyspaces.create(store, List.of("zone1", "zone2"), List.of("commerce", "customer"));
    shard("commerce", "0", false);
    // as MoveTables creates them: the target denies the tables until writes switch
    shard("customer", "-80", true);
    shard("customer", "80-", true);
    switcher = new TopologySwitcher(store);
  }

  @AfterEach
  void tearDown() {
    etcd.close();
  }

  @Test
  void stoppingSourceWritesDeniesTheSourceAndFreesTheTargetInOneRevision() {
    switcher.stopSourceWrites(MOVE, NO_LOCKS);

    assertSourceDeniedAndTargetFreedInOneRevision();
  }

  @Test
  void allowingSourceWritesUndoesItExactlyInOneRevision() {
    switcher.stopSourceWrites(MOVE, NO_LOCKS);

    switcher.allowSourceWrites(MOVE, NO_LOCKS);

    Versioned<Shard> source = read("commerce", "0");
    assertThat(source.value().deniedTables(TabletType.PRIMARY)).isEmpty();
    for (String shard : List.of("-80", "80-")) {
      Versioned<Shard> target = read("customer", shard);
      assertThat(target.value().deniedTables(TabletType.PRIMARY)).containsExactlyInAnyOrderElementsOf(TABLES);
      assertThat(target.modRevision()).isEqualTo(source.modRevision());
    }
  }

  /**
   * vtgate works out whether a MoveTables is switching writes when its cell's SrvVSchema changes:
   * it then reads the shard records. Each switch of the denied tables rewrites every cell's
   * SrvVSchema, as it is, in the same revision, so that vtgate looks while the denial is new.
   */
  @Test
  void stoppingAndAllowingSourceWritesRewriteEveryCellsSrvVSchemaUnchangedInTheSameRevision() {
    List<Versioned<SrvVSchema>> before = List.of(served("zone1"), served("zone2"));

    switcher.stopSourceWrites(MOVE, NO_LOCKS);

    long stopped = read("commerce", "0").modRevision();
    for (Versioned<SrvVSchema> was : before) {
      Versioned<SrvVSchema> now = store.getRequired(was.key());
      assertThat(now.modRevision()).as("%s rewritten with the shard records", was.key().key()).isEqualTo(stopped);
      assertThat(now.value()).isEqualTo(was.value());
    }

    switcher.allowSourceWrites(MOVE, NO_LOCKS);

    long allowed = read("commerce", "0").modRevision();
    assertThat(allowed).isGreaterThan(stopped);
    for (Versioned<SrvVSchema> was : before) {
      Versioned<SrvVSchema> now = store.getRequired(was.key());
      assertThat(now.modRevision()).as("%s rewritten by the undo", was.key().key()).isEqualTo(allowed);
      assertThat(now.value()).isEqualTo(was.value());
    }
  }

  @Test
  void aSwitchOfDeniedTablesThatChangesNoShardRewritesNothing() {
    switcher.stopSourceWrites(MOVE, NO_LOCKS);
    long served = served("zone1").modRevision();

    switcher.stopSourceWrites(MOVE, NO_LOCKS); // again: every shard already says so

    assertThat(served("zone1").modRevision()).isEqualTo(served);
  }

  /**
   * After stopSourceWrites, allowTargetWrites only reads the shard records: it starts no edit, whose
   * read of each cell's SrvVSchema beside them (a third of a megabyte at a thousand tables) would be
   * for a rewrite that does not happen.
   */
  @Test
  void allowingTargetWritesAfterTheSourceStoppedOnlyReadsTheShardsAndChangesNothing() {
    switcher.stopSourceWrites(MOVE, NO_LOCKS);
    long stopped = read("commerce", "0").modRevision();
    long served = served("zone1").modRevision();
    List<String> edits = new java.util.concurrent.CopyOnWriteArrayList<>();
    TopologyStore watched = (TopologyStore) java.lang.reflect.Proxy.newProxyInstance(
        TopologyStore.class.getClassLoader(), new Class<?>[] {TopologyStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("updateAll") || method.getName().equals("commit")) {
            edits.add(method.getName());
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });

    new TopologySwitcher(watched).allowTargetWrites(MOVE, NO_LOCKS);

    assertThat(edits).as("edits started").isEmpty();

    assertThat(read("commerce", "0").modRevision()).isEqualTo(stopped);
    assertThat(read("customer", "-80").modRevision()).isEqualTo(stopped);
    assertThat(served("zone1").modRevision()).isEqualTo(served);
  }

  /** Run where the shard records do not say so yet (a step run again after an undo), it does all stopSourceWrites does. */
  @Test
  void allowingTargetWritesWhereTheSourceWasNotStoppedDeniesItFreesTheTargetAndTellsTheCells() {
    switcher.allowTargetWrites(MOVE, NO_LOCKS);

    long revision = assertSourceDeniedAndTargetFreedInOneRevision();
    assertThat(served("zone2").modRevision()).as("zone2 told in the same revision").isEqualTo(revision);
  }

  /**
   * After the rules move, every cell's SrvVSchema is written once more, unchanged: vtgate clears the
   * plans it cached when it sees it, among them any made against the rules before the move.
   */
  @Test
  void changingTheRoutingWritesEveryCellsSrvVSchemaAgainAfterTheRulesMoved() {
    switcher.stopSourceWrites(MOVE, NO_LOCKS);

    switcher.changeRouting(MOVE, NO_LOCKS);

    Versioned<io.pointsman.engine.topo.model.RoutingRules> rules = store.getRequired(store.keys().routingRules());
    assertThat(rules.value().rules()).extracting(r -> r.fromTable()).contains("customer", "commerce.customer");
    for (String cell : List.of("zone1", "zone2")) {
      Versioned<SrvVSchema> now = served(cell);
      assertThat(now.modRevision()).as("%s written again after the rules", cell).isGreaterThan(rules.modRevision());
      assertThat(now.value().routingRules()).as("%s serves the moved rules", cell).isEqualTo(rules.value());
    }
  }

  /** The moved tables denied on the source and no longer on the target, all in one revision, which it returns. */
  private long assertSourceDeniedAndTargetFreedInOneRevision() {
    Versioned<Shard> source = read("commerce", "0");
    assertThat(source.value().deniedTables(TabletType.PRIMARY)).containsExactlyInAnyOrderElementsOf(TABLES);
    for (String shard : List.of("-80", "80-")) {
      Versioned<Shard> target = read("customer", shard);
      assertThat(target.value().deniedTables(TabletType.PRIMARY)).as("customer/%s", shard).isEmpty();
      assertThat(target.modRevision()).as("customer/%s written with the source", shard)
          .isEqualTo(source.modRevision());
    }
    return source.modRevision();
  }

  private Versioned<SrvVSchema> served(String cell) {
    return store.getRequired(store.keys().srvVSchema(cell));
  }

  private void shard(String keyspace, String name, boolean denied) {
    Shard shard = Shard.of(KeyRange.ofShard(name), TabletAlias.parse("zone1-0000000100"), true);
    store.create(store.keys().shard(keyspace, name),
        denied ? shard.withDeniedTables(TabletType.PRIMARY, TABLES, false) : shard);
  }

  private Versioned<Shard> read(String keyspace, String shard) {
    return store.getRequired(store.keys().shard(keyspace, shard));
  }
}
