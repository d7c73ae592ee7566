package io.pointsman.sandbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class SandboxShapeTest {
  @Test
  void theDefaultIsTheVitessLocalExampleWithItsTabletUids() {
    SandboxShape d = SandboxShape.DEFAULT;
    assertThat(d.servingPrimaries()).containsExactly(new ShardPrimary("commerce", "0", 100),
        new ShardPrimary("customer", "-80", 300), new ShardPrimary("customer", "80-", 400));
    assertThat(d.reshardTargetPrimaries()).extracting(ShardPrimary::shard, ShardPrimary::uid)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("-40", 500L), org.assertj.core.groups.Tuple.tuple("40-80", 600L),
            org.assertj.core.groups.Tuple.tuple("80-c0", 700L), org.assertj.core.groups.Tuple.tuple("c0-", 800L));
    assertThat(d.commerceVSchema().tables()).containsOnlyKeys("product", "customer", "corder");
    assertThat(d.customerVSchema().tables()).containsOnlyKeys("customer", "corder");
    assertThat(d.portOffset(new ShardPrimary("customer", "c0-", 800))).isEqualTo(6);
  }

  @Test
  void evenShardsCoverTheWholeKeyRangeWithoutGapsOrOverlaps() {
    assertThat(SandboxShape.evenShards(2)).containsExactly("-80", "80-");
    assertThat(SandboxShape.evenShards(4)).containsExactly("-40", "40-80", "80-c0", "c0-");
    List<String> sixteen = SandboxShape.evenShards(16);
    assertThat(sixteen).hasSize(16).startsWith("-10", "10-20").endsWith("f0-");
    for (int i = 1; i < sixteen.size(); i++) {
      assertThat(KeyRange.ofShard(sixteen.get(i)).start()).isEqualTo(KeyRange.ofShard(sixteen.get(i - 1)).end());
    }
    assertThatThrownBy(() -> SandboxShape.evenShards(3)).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("power of two");
  }

  @Test
  void aWiderShapeNumbersItsPrimariesAndTablesInOrder() {
    SandboxShape wide = SandboxShape.reshard(List.of("0"), SandboxShape.evenShards(8)).withExtraTables(3);
    assertThat(wide.allPrimaries()).hasSize(10);
    assertThat(wide.servingPrimaries().get(1)).isEqualTo(new ShardPrimary("customer", "0", 300));
    assertThat(wide.reshardTargetPrimaries().get(7).uid()).isEqualTo(1100);
    assertThat(wide.extraTableNames()).containsExactly("t0001", "t0002", "t0003");
    assertThat(wide.customerVSchema().tables()).containsKeys("t0003");
    assertThat(wide.servesInitially(new ShardPrimary("customer", "0", 300))).isTrue();
    assertThat(wide.servesInitially(wide.reshardTargetPrimaries().get(0))).isFalse();
    assertThatThrownBy(() -> new SandboxShape(List.of("-80"), List.of("-80"), 0))
        .hasMessageContaining("both serving and a Reshard target");
  }

  @Test
  void theWarehouseAddsTwoServingPrimariesAfterTheCustomerShardsAndMovesNothingElse() {
    SandboxShape shape = SandboxShape.DEFAULT.withExtraTables(1).withWarehouse();
    assertThat(shape.servingPrimaries()).endsWith(new ShardPrimary("warehouse", "0", 200),
        new ShardPrimary("archive", "0", 250));
    assertThat(shape.allPrimaries()).hasSize(9).endsWith(new ShardPrimary("customer", "c0-", 800));
    assertThat(shape.servesInitially(new ShardPrimary("archive", "0", 250))).isTrue();
    assertThat(shape.extraTables()).isEqualTo(1);
    assertThat(shape.withExtraTables(2).warehouse()).isTrue();
    assertThat(SandboxShape.DEFAULT.warehouse()).isFalse();
  }
}
