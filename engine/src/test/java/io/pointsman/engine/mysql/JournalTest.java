package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JournalTest {

  // Expected ids printed by a throw-away Go program (not in this repository) that calls
  // vitess.io/vitess/go/vt/vtctl/workflow.HashStreams of vitess.io/vitess@v0.24.4 with
  // MigrationTargets whose Sources maps hold the stream ids below; they also agree with a
  // Python FNV-1 64 written from the specification (fnv1_64("a") = 0xaf63bd4c8601b7be).
  @Test
  void migrationIdIsFnv1OverTheKeyspaceAndSortedShardStreamStrings() {
    assertThat(Journal.migrationId("customer", Map.of("-80", List.of(1, 2), "80-", List.of(1))))
        .isEqualTo(7718889592390171456L);
    assertThat(Journal.migrationId("customer", Map.of("0", List.of(1)))).isEqualTo(6740760173349126720L);
    assertThat(Journal.migrationId("commerce", Map.of("0", List.of(1)))).isEqualTo(7619041373535441003L);
    assertThat(Journal.migrationId("customer", Map.of("-80", List.of(1), "80-", List.of(1))))
        .isEqualTo(8200191490597391617L);
    assertThat(Journal.migrationId("customer", Map.of("-40", List.of(7), "40-80", List.of(8), "80-c0", List.of(9),
        "c0-", List.of(10)))).isEqualTo(4333375504052810422L);
  }

  @Test
  void idsAreSortedAsStringsNotNumbersAndInputOrderDoesNotMatter() {
    // "0:12" sorts before "0:3", as Go's sort.Strings orders them.
    assertThat(Journal.migrationId("commerce", Map.of("0", List.of(3, 12)))).isEqualTo(7417264895423541680L);
    Map<String, List<Integer>> reversed = new LinkedHashMap<>();
    reversed.put("80-", List.of(1));
    reversed.put("-80", List.of(2, 1));
    assertThat(Journal.migrationId("customer", reversed)).isEqualTo(7718889592390171456L);
  }

  @Test
  void isNotFnv1a() {
    // FNV-1a over the same input gives 5225975569100624730; Vitess uses hash/fnv New64 (FNV-1).
    assertThat(Journal.migrationId("customer", Map.of("-80", List.of(1, 2), "80-", List.of(1))))
        .isNotEqualTo(5225975569100624730L)
        .isPositive();
  }
}
