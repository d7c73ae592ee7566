package io.pointsman.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.api.model.TabletType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tablet types a workflow's streams read from, as its rows spell them. */
class ReverseReplicationCheckTest {
  @Test
  void anInOrderListKeepsItsOrderAndAnyCaseIsRead() {
    assertThat(ReverseReplicationCheck.tabletTypes("in_order:REPLICA,PRIMARY"))
        .containsExactly(TabletType.REPLICA, TabletType.PRIMARY);
    assertThat(ReverseReplicationCheck.tabletTypes(" rdonly , primary ,rdonly"))
        .containsExactly(TabletType.RDONLY, TabletType.PRIMARY);
  }

  @Test
  void noneOrOnlyUnknownNamesMeanVitesssDefault() {
    List<TabletType> vitessDefault = List.of(TabletType.REPLICA, TabletType.RDONLY, TabletType.PRIMARY);
    assertThat(ReverseReplicationCheck.tabletTypes("")).isEqualTo(vitessDefault);
    assertThat(ReverseReplicationCheck.tabletTypes(null)).isEqualTo(vitessDefault);
    assertThat(ReverseReplicationCheck.tabletTypes("in_order:")).isEqualTo(vitessDefault);
  }
}
