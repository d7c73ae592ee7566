package io.pointsman.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.api.errors.PointsmanException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TabletTypeTest {

  @ParameterizedTest
  @CsvSource({"PRIMARY,PRIMARY", "primary,PRIMARY", "' Replica ',REPLICA", "rdonly,RDONLY", "MASTER,PRIMARY",
      "master,PRIMARY", "BATCH,RDONLY", "batch,RDONLY", "spare,SPARE", "DRAINED,DRAINED"})
  void namesAreReadCaseInsensitivelyWithTheOldAliases(String input, TabletType expected) {
    assertThat(TabletType.parse(input)).isEqualTo(expected);
    assertThat(TabletType.lookup(input)).contains(expected);
  }

  @Test
  void anUnknownTypeIsRefusedNamingItAndTheAcceptedOnes() {
    assertThat(TabletType.lookup("replicas")).isEmpty();
    assertThatThrownBy(() -> TabletType.parse("replicas"))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("'replicas'")
        .hasMessageContaining("PRIMARY, REPLICA, RDONLY")
        .hasMessageContaining("MASTER, BATCH");
    assertThatThrownBy(() -> TabletType.parse(null)).hasMessageContaining("tablet type is missing");
  }

  @Test
  void onlyReplicaAndRdonlyAreSwitchedReads() {
    assertThat(List.of(TabletType.values()).stream().filter(TabletType::isSwitchedRead))
        .containsExactly(TabletType.REPLICA, TabletType.RDONLY);
    assertThat(TabletType.SWITCHED).containsExactly(TabletType.REPLICA, TabletType.RDONLY, TabletType.PRIMARY);
  }

  @Test
  void routingRulesSuffixReadTypesOnly() {
    assertThat(TabletType.PRIMARY.ruleSuffix()).isEmpty();
    assertThat(TabletType.REPLICA.ruleSuffix()).isEqualTo("@replica");
    assertThat(TabletType.RDONLY.ruleSuffix()).isEqualTo("@rdonly");
  }

  /** Workflow histories hold tablet types as these strings; the enum must keep writing them. */
  @Test
  void jsonCarriesTheVitessNames() throws Exception {
    ObjectMapper jackson = new ObjectMapper();
    assertThat(jackson.writeValueAsString(List.of(TabletType.REPLICA, TabletType.RDONLY, TabletType.PRIMARY)))
        .isEqualTo("[\"REPLICA\",\"RDONLY\",\"PRIMARY\"]");
    assertThat(jackson.readValue("\"RDONLY\"", TabletType.class)).isEqualTo(TabletType.RDONLY);
  }
}
