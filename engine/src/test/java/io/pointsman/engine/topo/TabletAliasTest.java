package io.pointsman.engine.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TabletAliasTest {
  /** Vitess prints an alias as its cell, a dash and the uid in ten digits; topology keys use that text. */
  @Test
  void printsTheUidInTenDigitsAndParsesWhatItPrints() {
    assertThat(new TabletAlias("zone1", 100)).hasToString("zone1-0000000100");
    assertThat(new TabletAlias("zone1", 0)).hasToString("zone1-0000000000");
    assertThat(new TabletAlias("us-east-1a", 4_294_967_295L)).hasToString("us-east-1a-4294967295");
    for (TabletAlias a : new TabletAlias[] {new TabletAlias("zone1", 7), new TabletAlias("us-east-1a", 123456789)}) {
      assertThat(TabletAlias.parse(a.toString())).isEqualTo(a);
    }
  }

  @Test
  void refusesAUidOutsideWhatVitessStores() {
    assertThatThrownBy(() -> new TabletAlias("zone1", 4_294_967_296L)).hasMessageContaining("outside 0..4294967295");
    assertThatThrownBy(() -> new TabletAlias("zone1", -1)).hasMessageContaining("outside 0..4294967295");
  }
}
