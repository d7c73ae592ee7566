package io.pointsman.engine.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WriteScopeTest {

  @Test
  void aFewTablesAreNamedInFull() {
    assertThat(WriteScope.tables(List.of("customer", "corder")).toString()).isEqualTo("tables [corder, customer]");
  }

  @Test
  void aThousandTablesAreCountedAndOnlyTheFirstFiveAndTheLastNamed() {
    List<String> thousand = IntStream.rangeClosed(1, 1000).mapToObj(i -> String.format("t%04d", i)).toList();

    assertThat(WriteScope.tables(thousand).toString())
        .isEqualTo("tables [t0001, t0002, t0003, t0004, t0005, ..., t1000] (1000 in all)");
  }

  @Test
  void theWholeDatabaseSaysSo() {
    assertThat(WriteScope.wholeDatabase().toString()).isEqualTo("the whole database");
  }
}
