package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.Keyspace;
import io.pointsman.engine.topo.model.Shard;
import io.pointsman.engine.topo.model.Tablet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PrimaryResolverTest {
  private static final TabletAlias PRIMARY = new TabletAlias("zone1", 101);

  private Client etcd;
  private EtcdTopologyStore topo;
  private TopoKeys keys;
  private PrimaryResolver resolver;

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    topo = new EtcdTopologyStore(etcd, TestEtcd.freshPaths());
    keys = topo.keys();
    resolver = new PrimaryResolver(topo);
  }

  @AfterEach
  void tearDown() {
    etcd.close();
  }

  private static Tablet tablet(TabletAlias alias, String keyspace, String shard, TabletType type, String dbOverride) {
    return new Tablet(alias, "tablet-host", Map.of("vt", 15101), keyspace, shard, KeyRange.ofShard(shard), type,
        dbOverride, "mysql-101.example", 17101);
  }

  @Test
  void followsShardPrimaryAliasToTheTabletsMysqlAndDatabase() {
    topo.create(keys.keyspace("customer"), new Keyspace("NORMAL", null, "none", "_vt_custom"));
    topo.create(keys.shard("customer", "-80"), Shard.of(KeyRange.ofShard("-80"), PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "customer", "-80", TabletType.PRIMARY, null));

    PrimaryEndpoint p = resolver.resolve("customer", "-80");

    assertThat(p).isEqualTo(new PrimaryEndpoint("customer", "-80", PRIMARY, "mysql-101.example", 17101,
        "vt_customer", "_vt_custom"));
    assertThat(p.address()).isEqualTo("mysql-101.example:17101");
  }

  @Test
  void usesTheDatabaseOverrideAndTheDefaultSidecar() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "commerce", "0", TabletType.PRIMARY, "shop"));

    PrimaryEndpoint p = resolver.resolve("commerce", "0");

    assertThat(p.dbName()).isEqualTo("shop");
    assertThat(p.sidecarDb()).isEqualTo("_vt");
  }

  @Test
  void aShardWithoutPrimaryIsAFailedPrecondition() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, null, true));

    assertThatThrownBy(() -> resolver.resolve("commerce", "0"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("shard commerce/0 has no primary");
  }

  @Test
  void missingRecordsAreNotFound() {
    // the keyspace is named, though its Shard and Tablet are read at the same time and are missing too
    assertThatThrownBy(() -> resolver.resolve("nowhere", "0"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND))
        .hasMessageStartingWith("Keyspace record ");
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    assertThatThrownBy(() -> resolver.resolve("commerce", "0"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }

  @Test
  void anExpectedPrimaryStillNamedIsResolvedWithTheShardRecordsTerm() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "commerce", "0", TabletType.PRIMARY, null));

    PrimaryResolver.Current now = resolver.resolveWithTerm("commerce", "0", new PrimaryTerm(PRIMARY.toString(), ""));

    assertThat(now.endpoint()).isEqualTo(resolver.resolve("commerce", "0"));
    assertThat(now.term()).isEqualTo(resolver.term("commerce", "0"));
  }

  @Test
  void anExpectationThatNamesNoTabletResolvesAsWithoutOne() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "commerce", "0", TabletType.PRIMARY, null));

    PrimaryResolver.Current now = resolver.resolveWithTerm("commerce", "0", new PrimaryTerm("not an alias", ""));

    assertThat(now).isEqualTo(resolver.resolveWithTerm("commerce", "0"));
  }

  /**
   * The expected primary's record is read beside the Shard record, but used only when the Shard
   * record names that tablet: after a failover the new primary comes back, with its term, for the
   * caller to refuse, never the old one's address, even when its record still says PRIMARY.
   */
  @Test
  void anExpectationTheShardRecordNoLongerMeetsResolvesThePrimaryItNames() {
    TabletAlias promoted = new TabletAlias("zone1", 102);
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, promoted, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "commerce", "0", TabletType.PRIMARY, null));
    topo.create(keys.tablet(promoted), new Tablet(promoted, "tablet-host", Map.of("vt", 15102), "commerce", "0",
        KeyRange.FULL, TabletType.PRIMARY, null, "mysql-102.example", 17102));

    PrimaryResolver.Current now = resolver.resolveWithTerm("commerce", "0", new PrimaryTerm(PRIMARY.toString(), ""));

    assertThat(now.endpoint().address()).isEqualTo("mysql-102.example:17102");
    assertThat(now.term().alias()).isEqualTo(promoted.toString());
  }

  @Test
  void aPrimaryAliasPointingAtAReplicaOrAnotherShardIsRefused() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), tablet(PRIMARY, "commerce", "0", TabletType.REPLICA, null));

    assertThatThrownBy(() -> resolver.resolve("commerce", "0")).hasMessageContaining("is a REPLICA tablet");
  }

  @Test
  void aTabletRecordWithAHostileHostnameIsRefused() {
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), new Tablet(PRIMARY, "h", Map.of(), "commerce", "0", KeyRange.FULL,
        TabletType.PRIMARY, null, "evil:1/?allowLoadLocalInfile=true#", 3306));

    assertThatThrownBy(() -> resolver.resolve("commerce", "0"))
        .isInstanceOfSatisfying(PointsmanException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("no usable mysql_hostname");
  }
}
