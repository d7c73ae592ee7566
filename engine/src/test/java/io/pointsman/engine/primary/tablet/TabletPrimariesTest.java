package io.pointsman.engine.primary.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.model.PrimaryTerm;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.primary.ShardRef;
import io.pointsman.engine.testing.TestEtcd;
import io.pointsman.engine.topo.EtcdTopologyStore;
import io.pointsman.engine.topo.TabletAlias;
import io.pointsman.engine.topo.TopoKeys;
import io.pointsman.engine.topo.TopologyStore;
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

/** The vttablet that serves a shard's primary, found from the topology as vtctld finds it. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TabletPrimariesTest {
  private static final TabletAlias PRIMARY = new TabletAlias("zone1", 101);

  private Client etcd;
  private EtcdTopologyStore topo;
  private TopoKeys keys;
  private TabletPrimaries primaries;

  @BeforeEach
  void setUp() {
    etcd = TestEtcd.client();
    topo = new EtcdTopologyStore(etcd, TestEtcd.freshPaths());
    keys = topo.keys();
    primaries = new TabletPrimaries(topo);
    topo.create(keys.keyspace("commerce"), Keyspace.normal());
    topo.create(keys.shard("commerce", "0"), Shard.of(KeyRange.FULL, PRIMARY, true));
    topo.create(keys.tablet(PRIMARY), new Tablet(PRIMARY, "tablet-101.example", Map.of("grpc", 16101), "commerce",
        "0", KeyRange.FULL, TabletType.PRIMARY, null, "mysql-101.example", 17101));
  }

  @AfterEach
  void tearDown() {
    etcd.close();
  }

  @Test
  void theShardsPrimaryIsItsTabletsGrpcEndpoint() {
    TabletPrimary p = primaries.resolve(new ShardRef("commerce", "0"));

    assertThat(p.endpoint().alias()).isEqualTo(PRIMARY);
    assertThat(p.endpoint().host()).isEqualTo("tablet-101.example");
    assertThat(p.endpoint().grpcPort()).isEqualTo(16101);
  }

  /**
   * The expected primary's record is read beside the Shard record, but it decides nothing unless the
   * Shard record names that tablet: an old primary whose record still says PRIMARY is refused.
   */
  @Test
  void aRefExpectingAnOldPrimaryWhoseRecordStillSaysPrimaryIsRefused() {
    TabletAlias old = new TabletAlias("zone1", 100);
    topo.create(keys.tablet(old), new Tablet(old, "tablet-100.example", Map.of("grpc", 16100), "commerce", "0",
        KeyRange.FULL, TabletType.PRIMARY, null, "mysql-100.example", 17100));
    ShardRef stale = new ShardRef("commerce", "0").expecting(new PrimaryTerm(old.toString(), ""));

    assertThatThrownBy(() -> primaries.resolve(stale))
        .hasMessageContaining("planned zone1-0000000100, now zone1-0000000101");
  }

  @Test
  void aRefExpectingThePrimaryWhoseRecordSaysReplicaIsRefusedAsAReparentInProgress() {
    topo.update(keys.tablet(PRIMARY), t -> new Tablet(PRIMARY, "tablet-101.example", Map.of("grpc", 16101), "commerce",
        "0", KeyRange.FULL, TabletType.REPLICA, null, "mysql-101.example", 17101), TopologyStore.UNLOCKED);
    ShardRef planned = new ShardRef("commerce", "0").expecting(new PrimaryTerm(PRIMARY.toString(), ""));

    assertThatThrownBy(() -> primaries.resolve(planned)).hasMessageContaining("is a REPLICA tablet");
  }

  @Test
  void aRefBoundToAnotherPrimaryIsRefusedOnTheReadThatNamesTheCurrentOne() {
    ShardRef planned = new ShardRef("commerce", "0").expecting(new PrimaryTerm(PRIMARY.toString(), ""));
    assertThat(primaries.resolve(planned).endpoint().alias()).isEqualTo(PRIMARY);

    ShardRef stale = new ShardRef("commerce", "0").expecting(new PrimaryTerm("zone1-0000000100", ""));
    assertThatThrownBy(() -> primaries.resolve(stale))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("the primary of commerce/0 changed during the switch")
        .hasMessageContaining("planned zone1-0000000100, now zone1-0000000101");
  }
}
