package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import org.junit.jupiter.api.Test;

class TopoPathsTest {
  private final TopoPaths paths = TopoPaths.defaults();

  @Test
  void keysAreVitessEtcd2topoKeys() {
    assertThat(paths.keyspace("commerce")).isEqualTo("/vitess/global/keyspaces/commerce/Keyspace");
    assertThat(paths.shard("customer", "-80")).isEqualTo("/vitess/global/keyspaces/customer/shards/-80/Shard");
    assertThat(paths.vschema("customer")).isEqualTo("/vitess/global/keyspaces/customer/VSchema");
    assertThat(paths.routingRules()).isEqualTo("/vitess/global/RoutingRules");
    assertThat(paths.shardRoutingRules()).isEqualTo("/vitess/global/ShardRoutingRules");
    assertThat(paths.cellInfo("zone1")).isEqualTo("/vitess/global/cells/zone1/CellInfo");
    assertThat(paths.cellsAlias("region1")).isEqualTo("/vitess/global/cells_aliases/region1/CellsAlias");
    assertThat(paths.srvKeyspace("zone1", "customer")).isEqualTo("/vitess/zone1/keyspaces/customer/SrvKeyspace");
    assertThat(paths.srvVSchema("zone1")).isEqualTo("/vitess/zone1/SrvVSchema");
    assertThat(paths.tablet(new TabletAlias("zone1", 100))).isEqualTo("/vitess/zone1/tablets/zone1-0000000100/Tablet");
  }

  @Test
  void lockDirectoriesAreVitessLockDirectories() {
    assertThat(TopoPaths.locksPrefix(paths.keyspaceDir("customer"))).isEqualTo("/vitess/global/keyspaces/customer/locks/");
    assertThat(TopoPaths.locksPrefix(paths.shardDir("customer", "80-")))
        .isEqualTo("/vitess/global/keyspaces/customer/shards/80-/locks/");
    assertThat(TopoPaths.locksPrefix(paths.namedLockDir("customer/commerce2customer")))
        .isEqualTo("/vitess/global/internal/named_locks/customer/commerce2customer/locks/");
  }

  @Test
  void rootsAreConfigurable() {
    TopoPaths custom = new TopoPaths("/topo/g", "/topo/cells");
    assertThat(custom.shard("ks", "0")).isEqualTo("/topo/g/keyspaces/ks/shards/0/Shard");
    assertThat(custom.srvVSchema("c1")).isEqualTo("/topo/cells/c1/SrvVSchema");
  }

  @Test
  void badNamesNeverBecomeKeys() {
    assertThatThrownBy(() -> paths.shard("customer", "../x")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> paths.keyspace("a/b")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> paths.namedLockDir("ks//wf")).isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> new TopoPaths("vitess/global", "/vitess")).hasMessageContaining("must start with '/'");
  }

  @Test
  void tabletAliasPrintsAndParsesLikeVitess() {
    TabletAlias a = TabletAlias.parse("zone1-0000000101");
    assertThat(a).isEqualTo(new TabletAlias("zone1", 101));
    assertThat(a.toString()).isEqualTo("zone1-0000000101");
    assertThatThrownBy(() -> TabletAlias.parse("zone1")).hasMessageContaining("<cell>-<uid>");
    assertThat(TabletAlias.tryParse("zone1-0000000101")).contains(a);
    assertThat(TabletAlias.tryParse("zone1")).isEmpty();
    assertThat(TabletAlias.tryParse("zone1-x")).isEmpty();
  }
}
